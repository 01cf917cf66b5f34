"""What reading a page costs the browser agent, now and at an earlier commit, interleaved on one
Chromium (issue 40: the overlay check of page_facts.js had made tall pages up to 2.2x slower).

1. The page-facts script (browser/js/page_facts.js, run at every page read) on generated
   tables of 50, 1,000, 3,000 and 10,000 rows (browser_pages.rows_page: a link, a text field and
   a button a row) and on the short pages of the overlay fixtures (tests/fixtures/sites/view):
   the script as it was at `--before` against this worktree's, and whether both found the same
   facts (their common keys; the large pages' omitted ones aside).
2. The whole view (observe.read_page: page facts, then the snapshot or, on a large page, the
   viewport-first scan and its view) against a plain `aria_snapshot(mode="ai")`, on the same
   pages and the ordinary and issue-17 fixture pages. Small pages are timed as first read
   (facts, then snapshot) and as read again (both at once, the observer's steady state). The
   `--before` column is read_page running that commit's page_facts.js and large_page.js.
3. Every in-page script the agent runs per step or per action, on 50 and 10,000 rows with a
   sign-up form above the table (browser_script_cost.py).

Each figure is the median of ROUNDS, the variants interleaved within each round. The goals of
issue 40 are checked at the end.

Run from the repo root: `.venv/bin/python -m bench.browser_page_cost --before d39ed0d
[--rounds 5] [--only facts,view,scripts]`
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from functools import partial
from typing import Any

from playwright.async_api import Browser, Page, async_playwright

from bench.browser_pages import ORDINARY, rows_name, serve_pages
from bench.browser_report import (
    CHROMIUM,
    Goal,
    environment,
    goal_table,
    load_line,
    show,
    source_line,
    table,
)
from bench.browser_script_cost import script_costs
from bench.browser_scripts_at import medians, now, script_at, view_scripts_at
from outrider.server.browser.observe import read_page
from outrider.server.browser.refs import RefMap
from outrider.server.browser.secrets import Secrets
from outrider.server.settings.browser import BrowserSettings

ROWS = (50, 1000, 3000, 10000)
OVERLAY_PAGES = {  # the fixtures of the overlay check: short pages, with and without one
    "short banner": "/view/short_banner.html",
    "blocked": "/view/blocked.html",
    "covered strip": "/view/covered.html",
    "app shell": "/view/app_shell.html",
}
OTHER_SMALL = ORDINARY | {
    "invoices": "/view/invoices.html",
    "booking": "/view/booking.html",
    "consent": "/view/consent.html",
    "contact": "/view/contact.html",
}
SETTINGS = BrowserSettings()


def rows_pages() -> dict[str, str]:
    return {f"{n:,} rows": f"/gen/{rows_name(n)}.html" for n in ROWS}


async def opened(browser: Browser, url: str) -> Page:
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    await page.goto(url)
    await page.evaluate("document.body.getBoundingClientRect()")  # laid out before timing
    return page


def same_facts(before: dict[str, Any], after: dict[str, Any]) -> str:
    differing = [key for key in before.keys() & after.keys() if before[key] != after[key]]
    return "yes" if not differing else "no: " + ", ".join(sorted(differing))


async def facts_section(browser: Browser, base: str, before: str, rounds: int) -> list[float]:
    """Section 1; returns the now/before ratio of the largest table."""
    limit = SETTINGS.large_page_elements
    old, new = script_at(before, "page_facts.js"), now("page_facts.js")
    assert old is not None, f"{before} has no page_facts.js"
    rows, ratios = [], []
    for name, path in (rows_pages() | OVERLAY_PAGES).items():
        page = await opened(browser, base + path)
        found = [await page.evaluate(script, [limit]) for script in (old, new)]
        figures = await medians([partial(page.evaluate, s, [limit]) for s in (old, new)], rounds)
        await page.close()
        ratios.append(figures[1] / figures[0])
        overlay = "yes" if found[1]["overlay"] else "no"
        cells = [f"{f:.1f}" for f in figures]
        rows.append([name, f"{found[1]['count']:,}", *cells, f"{ratios[-1]:.2f}x", overlay])
        rows[-1].append(same_facts(*found))
    headers = ["page", "elements", f"at {before[:8]} ms", "now ms", "now / before"]
    show(
        f"1. page_facts.js, median of {rounds}",
        table([*headers, "overlay (now)", "same facts"], rows),
    )
    return ratios


async def view_once(page: Page, known_small: bool) -> None:
    await read_page(page, 1, RefMap(), Secrets(), SETTINGS, known_small)


def view_calls(page: Page, before: str, known_small: bool) -> list[Any]:
    async def at_before() -> None:
        with view_scripts_at(before):
            await view_once(page, known_small)

    return [lambda: view_once(page, known_small), at_before]


async def view_section(
    browser: Browser, base: str, before: str, rounds: int
) -> tuple[dict[str, float], list[float]]:
    """Section 2; returns view/aria of the large tables by name, and of every small page."""
    limit = SETTINGS.large_page_elements
    rows, large, small = [], {}, []
    for name, path in (rows_pages() | OVERLAY_PAGES | OTHER_SMALL).items():
        page = await opened(browser, base + path)
        count = await page.evaluate("document.getElementsByTagName('*').length")
        aria = [partial(page.aria_snapshot, mode="ai", timeout=600_000)]
        calls = aria + view_calls(page, before, False)
        if count <= limit:
            calls += view_calls(page, before, True)
        figures = await medians(calls, rounds)
        await page.close()
        ratio = figures[1] / figures[0]
        if count > limit:
            large[name] = ratio
            cells = [f"{figures[2]:.1f}", f"{figures[1]:.1f}", "-", "-", f"{ratio:.3f}x", "-"]
        else:
            again = figures[3] / figures[0]
            small.append(ratio)
            cells = [f"{f:.1f}" for f in (figures[2], figures[1], figures[4], figures[3])]
            cells += [f"{ratio:.2f}x", f"{again:.2f}x"]
        rows.append([name, f"{count:,}", f"{figures[0]:.1f}", *cells])
    headers = ["page", "elements", "aria_snapshot ms", f"first read at {before[:8]}", "first read"]
    headers += [f"again at {before[:8]}", "again", "first / aria", "again / aria"]
    show(
        f"2. the whole view (read_page) against aria_snapshot, ms, median of {rounds}",
        table(headers, rows),
    )
    return large, small


def goals(facts: list[float] | None, large: dict[str, float], small: list[float]) -> list[Goal]:
    found = []
    if facts:
        found.append(
            Goal(
                "page_facts.js at 10,000 rows within 1.2x of --before",
                f"{facts[ROWS.index(10000)]:.2f}x",
                facts[ROWS.index(10000)] <= 1.2,
            )
        )
    for name in ("3,000 rows", "10,000 rows"):
        if name in large:
            found.append(
                Goal(
                    f"the view at {name} <= 0.05x aria_snapshot",
                    f"{large[name]:.3f}x",
                    large[name] <= 0.05,
                )
            )
    if small:
        middle = statistics.median(small)
        found.append(
            Goal(
                "median over small pages (first read) <= 1.5x aria_snapshot",
                f"{middle:.2f}x of {len(small)} pages",
                middle <= 1.5,
            )
        )
    return found


async def main(before: str, rounds: int, only: set[str]) -> None:
    print(f"{source_line()} against {before}; {environment()}; {load_line()}", flush=True)
    facts: list[float] | None = None
    large: dict[str, float] = {}
    small: list[float] = []
    with serve_pages(ROWS) as base:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM)
            if "facts" in only:
                facts = await facts_section(browser, base, before, rounds)
            if "view" in only:
                large, small = await view_section(browser, base, before, rounds)
            if "scripts" in only:
                show(
                    f"3. every in-page script, ms, median of {rounds}",
                    await script_costs(browser, before, rounds),
                )
            await browser.close()
    show("goals of issue 40", goal_table(goals(facts, large, small)))
    print(load_line())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the commit whose scripts to time too")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="facts,view,scripts", help="sections, comma-separated")
    arguments = parser.parse_args()
    sections = set(arguments.only.split(","))
    asyncio.run(main(arguments.before, arguments.rounds, sections))
