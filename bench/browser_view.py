"""Tokens of the model's page view before and after a change of the view builder (issue 17).

For each benchmark page (the ordinary fixture pages, the generated 1,000- and 3,000-row tables,
and the fixture pages made for issue 17 under tests/fixtures/sites/view) it takes one raw
`aria_snapshot(mode="ai")` and the page facts the agent reads (open modal dialog, combobox
notes), then counts cl100k_base tokens of: the raw snapshot, `build_view` as it was at the
`--before` commit (its page_model.py loaded from git), and `build_view` of this worktree. Both
views are uncapped, so the cap does not hide a difference.

With `--timing ROUNDS` it also times, on the ordinary and issue-17 pages, the agent's page
read on a page it has read before (`observe.read_page`: page facts with the snapshot in one
call, the frames' password values alongside, then view building), and the calls
observe.py made at the --before commit (element count, snapshot, a password scan per frame,
old build_view, title), against a plain `aria_snapshot(mode="ai")`, alternating the three,
p50 of ROUNDS.

Run from the repo root: `.venv/bin/python -m bench.browser_view --before <commit> [--timing N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from playwright.async_api import Page, async_playwright

from bench.browser_pages import ORDINARY, all_pages, serve_pages
from bench.browser_report import CHROMIUM, table
from bench.browser_scripts_at import file_at
from bench.browser_tokens import token_counter
from outrider.server.browser import facts_feed
from outrider.server.browser.js import load_js
from outrider.server.browser.observe import read_page
from outrider.server.browser.page_model import PageFacts, build_view, page_facts
from outrider.server.browser.refs import RefMap
from outrider.server.browser.secrets import Secrets
from outrider.server.settings.browser import BrowserSettings

VIEW_PAGES = {
    "invoices (17)": "/view/invoices.html",
    "booking (17)": "/view/booking.html",
    "consent (17)": "/view/consent.html",
    "blocked (17)": "/view/blocked.html",
}
_PAGE_MODEL = "server/outrider/server/browser/page_model.py"


def module_at(commit: str) -> ModuleType:
    """page_model.py as it was at `commit`, imported under another name."""
    source = file_at(commit, _PAGE_MODEL)
    if source is None:
        raise SystemExit(f"{commit} has no {_PAGE_MODEL}")
    path = Path(tempfile.mkdtemp(prefix="bench-view-")) / "page_model_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("page_model_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while decorating
    spec.loader.exec_module(module)
    return module


async def facts_of(page: Page) -> PageFacts:
    return page_facts(await page.evaluate(load_js("page_facts.js"), [5000]))


async def measure(before: ModuleType) -> list[list[str]]:
    count = token_counter().count
    rows = []
    with serve_pages() as base:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM)
            for name, path in (all_pages() | VIEW_PAGES).items():
                page = await browser.new_page()
                await page.goto(base + path)
                raw = await page.aria_snapshot(mode="ai", timeout=120_000)
                facts = await facts_of(page)
                await page.close()
                old = before.build_view(raw, 1, RefMap(), Secrets(), 10**12).text
                new = build_view(raw, 1, RefMap(), Secrets(), 10**12, facts).text
                raw_t, old_t, new_t = count(raw), count(old), count(new)
                rows.append(
                    [
                        name,
                        f"{raw_t:,}",
                        f"{old_t:,}",
                        f"{new_t:,}",
                        f"{100 * new_t / old_t:.0f}%",
                    ]
                )
            await browser.close()
    return rows


async def paged_task(before: ModuleType) -> list[str]:
    """A five-step task: the invoices table read page by page through "Next page"; the views
    of all five steps summed, before and after."""
    count = token_counter().count
    totals = [0, 0, 0]
    with serve_pages() as base:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM)
            page = await browser.new_page()
            await page.goto(base + VIEW_PAGES["invoices (17)"])
            for step in range(5):
                if step:
                    await page.get_by_role("button", name="Next page").click()
                raw = await page.aria_snapshot(mode="ai")
                facts = await facts_of(page)
                old = before.build_view(raw, 1, RefMap(), Secrets(), 10**12).text
                new = build_view(raw, 1, RefMap(), Secrets(), 10**12, facts).text
                for index, text in enumerate((raw, old, new)):
                    totals[index] += count(text)
            await browser.close()
    raw_t, old_t, new_t = totals
    share = f"{100 * new_t / old_t:.0f}%"
    return ["invoices, 5 steps (sum)", f"{raw_t:,}", f"{old_t:,}", f"{new_t:,}", share]


async def calls_before(page: Page, before: ModuleType) -> None:
    """The page read as observe.py made it at the --before commit, call for call."""
    await page.evaluate("() => document.getElementsByTagName('*').length")
    raw = await page.aria_snapshot(mode="ai")
    for frame in page.frames:
        await frame.evaluate(before.PASSWORD_VALUES_JS)
    before.build_view(raw, 1, RefMap(), Secrets(), 24_000)
    await page.title()


async def timing(rounds: int, before: ModuleType) -> list[list[str]]:
    rows = []
    settings = BrowserSettings()
    with serve_pages() as base:
        async with async_playwright() as playwright:
            await facts_feed.register(playwright)  # as the server's launcher does
            browser = await playwright.chromium.launch(executable_path=CHROMIUM)
            for name, path in (ORDINARY | VIEW_PAGES).items():
                page = await browser.new_page()
                await page.goto(base + path)
                plain, old, full = [], [], []
                for _ in range(rounds):
                    started = time.perf_counter()
                    await page.aria_snapshot(mode="ai")
                    plain.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    await calls_before(page, before)
                    old.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    await read_page(page, 1, RefMap(), Secrets(), settings, known_small=True)
                    full.append(time.perf_counter() - started)
                await page.close()
                p50 = [statistics.median(times) for times in (plain, old, full)]
                rows.append(
                    [
                        name,
                        *(f"{1000 * t:.1f}" for t in p50),
                        f"{p50[1] / p50[0]:.2f}x",
                        f"{p50[2] / p50[0]:.2f}x",
                    ]
                )
            await browser.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="commit whose build_view is 'before'")
    parser.add_argument("--timing", type=int, default=0, help="rounds of the timing section")
    args = parser.parse_args()
    before = module_at(args.before)
    rows = asyncio.run(measure(before))
    rows.append(asyncio.run(paged_task(before)))
    headers = ["page", "raw AI snapshot", "view before", "view after", "after / before"]
    sys.stdout.write(f"cl100k_base tokens, uncapped views\n\n{table(headers, rows)}\n")
    if args.timing:
        rows = asyncio.run(timing(args.timing, before))
        headers = [
            "page",
            "aria_snapshot p50 ms",
            "read before p50 ms",
            "read_page p50 ms",
            "before / aria",
            "read_page / aria",
        ]
        sys.stdout.write(f"\nview time, {args.timing} rounds\n\n{table(headers, rows)}\n")


if __name__ == "__main__":
    main()
