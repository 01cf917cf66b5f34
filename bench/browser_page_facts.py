"""How the page-facts script (browser/js/page_facts.js, run at every page read) grows with the
page: generated pages of 500, 1,000 and 2,000 units, each shape one a script may read in time
quadratic in the page's size.

- nested lines: inline elements nested inside each other, each with a line break
  (`<span>part 1<br><span>part 2<br>...`): the text-break reading judged each element again for
  every line break above it.
- hidden lines: an off-screen block of the same line repeated (`same<br>` times N): the
  hidden-text reading took the block's whole text again for each of its lines.
- article: N ordinary paragraphs (the common case, for comparison).

With `--before COMMIT` it also times the script as it was at that commit (loaded from git).
Each figure is the median of ROUNDS evaluations, in milliseconds, in Debian's Chromium.

Run from the repo root: `.venv/bin/python -m bench.browser_page_facts [--before C] [--rounds N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable

from playwright.async_api import Page, async_playwright

from bench.browser_report import CHROMIUM
from bench.browser_scripts_at import script_at
from outrider.server.browser.js import load_js
from outrider.server.settings.browser import BrowserSettings

SIZES = (500, 1000, 2000)


def nested_lines(units: int) -> str:
    return "<p>" + "".join(f"<span>part {i}<br>" for i in range(units)) + "</span>" * units


def hidden_lines(units: int) -> str:
    block = "same<br>" * units
    return f'<div style="position:absolute;left:-9999px">{block}</div><p>Visible.</p>'


def article(units: int) -> str:
    return "".join(f"<p>Paragraph {i} with <a href='#{i}'>a link</a>.</p>" for i in range(units))


SHAPES: dict[str, Callable[[int], str]] = {
    "nested lines": nested_lines,
    "hidden lines": hidden_lines,
    "article": article,
}


async def median_ms(page: Page, script: str, rounds: int) -> float:
    limit = BrowserSettings().large_page_elements
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        await page.evaluate(script, [limit])
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def main(before: str | None, rounds: int) -> None:
    scripts = {"now": load_js("page_facts.js")}
    if before:
        earlier = script_at(before, "page_facts.js")
        assert earlier is not None, f"{before} has no page_facts.js"
        scripts = {f"at {before[:8]}": earlier, **scripts}
    print(f"page facts script, median of {rounds} evaluations, ms")
    print("| page | units | " + " | ".join(scripts) + " |")
    print("|---|---:|" + "---:|" * len(scripts))
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM)
        page = await browser.new_page()
        for shape, make in SHAPES.items():
            for units in SIZES:
                await page.set_content(make(units))
                await page.evaluate("document.body.getBoundingClientRect()")  # layout first
                figures = [await median_ms(page, script, rounds) for script in scripts.values()]
                cells = " | ".join(f"{figure:,.0f}" for figure in figures)
                print(f"| {shape} | {units:,} | {cells} |", flush=True)
        await browser.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="a commit whose page_facts.js to time as well")
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.before, arguments.rounds))
