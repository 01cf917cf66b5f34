"""What reading a page costs the browser agent, now and at an earlier commit, interleaved on one
Chromium (issue 40: the overlay check of page_facts.js had made tall pages up to 2.2x slower).

1. The page-facts script (browser/js/page_facts.js, run at every page read) on generated
   tables of 50, 1,000, 3,000 and 10,000 rows (browser_pages.rows_page: a link, a text field and
   a button a row) and on the short pages of the overlay fixtures (tests/fixtures/sites/view):
   the script as it was at `--before` against this worktree's, and whether both found the same
   facts (their common keys; the large pages' omitted ones aside).
2. The whole view (observe.read_page: page facts and the snapshot or, on a large page, the
   viewport-first scan and its view) against a plain `aria_snapshot(mode="ai")`, on the same
   pages and the ordinary and issue-17 fixture pages, on an unchanged page. Small pages are
   timed as first read and as read again, over SMALL_ROUNDS, with an empty call for the cost of
   one more call to the page. Now, the facts ride on the snapshot's call (facts_feed.py): a
   first read has them posted, as on a new document, a read again of unchanged facts does not.
   The `--before` columns are read_page reading the facts by a call of their own, as before
   (first read: facts, then snapshot; read again: both at once), with that commit's
   page_facts.js and large_page.js; "same view" compares the two views.
3. Every in-page script the agent runs per step or per action, on 50 and 10,000 rows with a
   sign-up form above the table (browser_script_cost.py).

Each figure is the median of ROUNDS, the variants interleaved within each round; in sections 1
and 3 each call follows a change of the page (an element added and removed, as an action
changes it; Chromium keeps some answers until the page changes). The goals of issue 40 are
checked at the end.

Run from the repo root: `.venv/bin/python -m bench.browser_page_cost --before d39ed0d
[--rounds 5] [--small-rounds 15] [--only facts,view,scripts]` (`--only small-view`: the view
section on the small pages alone).
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
from bench.browser_scripts_at import medians, now, running, script_at, view_scripts_at
from outrider.server.browser import facts_feed
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


def rows_pages(counts: tuple[int, ...] = ROWS) -> dict[str, str]:
    return {f"{n:,} rows": f"/gen/{rows_name(n)}.html" for n in counts}


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
        figures = await medians(
            page, [partial(page.evaluate, s, [limit]) for s in (old, new)], rounds
        )
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


async def view_once(page: Page, known_small: bool) -> str:
    """The view as read for the first time (facts_feed posting the facts, or without it, facts
    first) or read again (the facts unchanged, or without facts_feed, read at once)."""
    if not known_small:
        facts_feed.forget(page)
    return (await read_page(page, 1, RefMap(), Secrets(), SETTINGS, known_small)).view.text


def view_calls(page: Page, before: tuple[str, str], known_small: bool) -> list[Any]:
    """read_page with this worktree's scripts and with `before`'s."""

    async def at_before() -> str:
        with running(before):
            return await view_once(page, known_small)

    return [partial(view_once, page, known_small), at_before]


async def view_section(
    browser: Browser, base: str, before: str, rounds: tuple[int, int], pages: dict[str, str]
) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Section 2; returns view/aria of the large tables by name, and of every small page (first
    reads and reads again). Timed on an unchanged page, as the issue measured aria_snapshot: a
    change before each call makes Playwright's snapshot of a large table many times slower."""
    limit, scripts = SETTINGS.large_page_elements, view_scripts_at(before)
    rows, large = [], {}
    small: dict[str, list[float]] = {"first": [], "again": []}
    for name, path in pages.items():
        page = await opened(browser, base + path)
        count = await page.evaluate("document.getElementsByTagName('*').length")
        calls = [partial(page.aria_snapshot, mode="ai", timeout=600_000)]
        calls += view_calls(page, scripts, False)
        if count <= limit:  # and a call doing nothing: what one more call to the page costs
            calls += [*view_calls(page, scripts, True), partial(page.evaluate, "() => 0")]
        same = "yes" if await calls[1]() == await calls[2]() else "no"
        figures = await medians(page, calls, rounds[count <= limit], touch=False)
        await page.close()
        aria, first = figures[0], figures[1] / figures[0]
        if count > limit:
            large[name] = first
            cells = [f"{figures[2]:.1f}", f"{figures[1]:.1f}", "-", "-", "-", f"{first:.3f}x", "-"]
        else:
            again = figures[3] / aria
            small["first"].append(first)
            small["again"].append(again)
            cells = [
                f"{f:.1f}" for f in (figures[2], figures[1], figures[4], figures[3], figures[5])
            ]
            cells += [f"{first:.2f}x", f"{again:.2f}x"]
        rows.append([name, f"{count:,}", f"{aria:.1f}", *cells, same])
    headers = ["page", "elements", "aria_snapshot", f"first read at {before[:8]}", "first read"]
    headers += [f"again at {before[:8]}", "again", "empty call", "first / aria", "again / aria"]
    headers.append("same view")
    show(
        f"2. the whole view (read_page) against aria_snapshot, ms, median of {rounds[0]} "
        f"(small pages: {rounds[1]})",
        table(headers, rows),
    )
    return large, small


def goals(
    facts: list[float] | None, large: dict[str, float], small: dict[str, list[float]]
) -> list[Goal]:
    found = []
    if facts:
        ratio = facts[ROWS.index(10000)]
        found.append(
            Goal(
                "page_facts.js at 10,000 rows within 1.2x of --before",
                f"{ratio:.2f}x",
                ratio <= 1.2,
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
    for read, ratios in small.items():
        if ratios:
            middle = statistics.median(ratios)
            found.append(
                Goal(
                    f"median over small pages ({read} read) <= 1.5x aria_snapshot",
                    f"{middle:.2f}x of {len(ratios)} pages",
                    middle <= 1.5,
                )
            )
    return found


async def main(before: str, rounds: tuple[int, int], only: set[str]) -> None:
    print(f"{source_line()} against {before}; {environment()}; {load_line()}", flush=True)
    facts: list[float] | None = None
    large: dict[str, float] = {}
    small: dict[str, list[float]] = {}
    views: dict[str, str] = {}
    if only & {"view", "small-view"}:
        views = rows_pages(ROWS if "view" in only else ROWS[:1]) | OVERLAY_PAGES | OTHER_SMALL
    with serve_pages(ROWS) as base:
        async with async_playwright() as playwright:
            await facts_feed.register(playwright)  # as the server's launcher does
            browser = await playwright.chromium.launch(executable_path=CHROMIUM)
            if "facts" in only:
                facts = await facts_section(browser, base, before, rounds[0])
            if views:
                large, small = await view_section(browser, base, before, rounds, views)
            if "scripts" in only:
                show(
                    f"3. every in-page script, ms, median of {rounds[0]}",
                    await script_costs(browser, before, rounds[0]),
                )
            await browser.close()
    show("goals of issue 40", goal_table(goals(facts, large, small)))
    print(load_line())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the commit whose scripts to time too")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--small-rounds", type=int, default=15, help="rounds of small pages' views")
    parser.add_argument(
        "--only",
        default="facts,view,scripts",
        help="sections, comma-separated: facts, view (small-view: its small pages only), scripts",
    )
    arguments = parser.parse_args()
    sections = set(arguments.only.split(","))
    rounds = (arguments.rounds, arguments.small_rounds)
    asyncio.run(main(arguments.before, rounds, sections))
