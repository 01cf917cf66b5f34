"""Tokens of the model's page view before and after a change of the view builder (issue 17).

For each benchmark page (the ordinary fixture pages, the generated 1,000- and 3,000-row tables,
and the fixture pages made for issue 17 under tests/fixtures/sites/view) it takes one raw
`aria_snapshot(mode="ai")` and the page facts the agent reads (open modal dialog, combobox
notes), then counts cl100k_base tokens of: the raw snapshot, `build_view` as it was at the
`--before` commit (its page_model.py loaded from git), and `build_view` of this worktree. Both
views are uncapped, so the cap does not hide a difference.

Run from the repo root: `.venv/bin/python -m bench.browser_view --before <commit>`.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

from playwright.async_api import Page, async_playwright

from bench.browser_pages import REPO_ROOT, all_pages, serve_pages
from bench.browser_report import CHROMIUM, table
from bench.browser_tokens import token_counter
from outrider.server.browser.js import load_js
from outrider.server.browser.page_model import PageFacts, bare_comboboxes, build_view
from outrider.server.browser.refs import RefMap
from outrider.server.browser.secrets import Secrets

VIEW_PAGES = {
    "invoices (17)": "/view/invoices.html",
    "booking (17)": "/view/booking.html",
    "consent (17)": "/view/consent.html",
    "blocked (17)": "/view/blocked.html",
}
_PAGE_MODEL = "server/outrider/server/browser/page_model.py"


def module_at(commit: str) -> ModuleType:
    """page_model.py as it was at `commit`, imported under another name."""
    source = subprocess.run(
        ["git", "show", f"{commit}:{_PAGE_MODEL}"],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = Path(tempfile.mkdtemp(prefix="bench-view-")) / "page_model_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("page_model_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while decorating
    spec.loader.exec_module(module)
    return module


async def facts_of(page: Page, raw: str) -> PageFacts:
    found = await page.evaluate(load_js("page_facts.js"), [5000])
    notes = {
        ref: await page.locator(f"aria-ref={ref}").evaluate(load_js("combobox_facts.js"))
        for ref in bare_comboboxes(raw)
    }
    return PageFacts(found["modal"], notes, frozenset(found["hidden"]))


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
                facts = await facts_of(page, raw)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="commit whose build_view is 'before'")
    args = parser.parse_args()
    rows = asyncio.run(measure(module_at(args.before)))
    headers = ["page", "raw AI snapshot", "view before", "view after", "after / before"]
    sys.stdout.write(f"cl100k_base tokens, uncapped views\n\n{table(headers, rows)}\n")


if __name__ == "__main__":
    main()
