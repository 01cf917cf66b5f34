"""The in-page scripts of the browser agent (server/outrider/server/browser/js) as they are now
and as they were at an earlier commit, for benchmarks that time both on one browser, and
read_page run with an earlier commit's page-facts and large-page scripts."""

from __future__ import annotations

import contextlib
import statistics
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence

from playwright.async_api import Page

from bench.browser_report import REPO_ROOT
from outrider.server.browser import facts_feed, observe
from outrider.server.browser.js import load_js, with_helpers

JS_DIR = "server/outrider/server/browser/js"


def script_at(commit: str, name: str) -> str | None:
    """The script `name` as it was at `commit`, as load_js gives it (bare, with its helpers);
    None if it did not exist then."""

    def read(script: str) -> str:
        return file_at(commit, f"{JS_DIR}/{script}") or ""

    source = read(name)
    return with_helpers(source, read) if source else None


def file_at(commit: str, path: str) -> str | None:
    """The text of the repository's file `path` at `commit`; None if it did not exist then."""
    shown = subprocess.run(
        ["git", "show", f"{commit}:{path}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return shown.stdout if shown.returncode == 0 else None


def view_scripts_at(commit: str) -> tuple[str, str]:
    """`commit`'s page_facts.js and large_page.js, for `running`."""
    facts, large = script_at(commit, "page_facts.js"), script_at(commit, "large_page.js")
    if facts is None or large is None:
        raise SystemExit(f"{commit} has no page_facts.js or large_page.js")
    return facts, large


@contextlib.contextmanager
def running(scripts: tuple[str, str]) -> Iterator[None]:
    """observe.read_page running these page_facts.js and large_page.js (an earlier commit's;
    their output has the same shape at every commit the benchmarks compare), with the facts
    read by a call of their own, as before they rode on the snapshot's call (facts_feed.py)."""
    saved = observe._PAGE_FACTS_JS, observe._LARGE_PAGE_JS, facts_feed.available
    observe._PAGE_FACTS_JS, observe._LARGE_PAGE_JS = scripts
    facts_feed.available = lambda page: False
    try:
        yield
    finally:
        observe._PAGE_FACTS_JS, observe._LARGE_PAGE_JS, facts_feed.available = saved


def now(name: str) -> str:
    return load_js(name)


# A change of the page, as an agent's action makes one before each read: Chromium keeps some
# answers (an element's labels) until the document changes, and a repeated call must not time them.
TOUCH = (
    "() => { const mark = document.createElement('i'); document.body.append(mark); mark.remove(); }"
)


async def medians(
    page: Page, calls: Sequence[Callable[[], Awaitable[object]]], rounds: int, touch: bool = True
) -> list[float]:
    """Median milliseconds of each call over `rounds` rounds, the calls interleaved within a
    round (one of each, in turn; every other round in reverse order) after one unmeasured
    warm-up round; with `touch`, each after a change of the page (TOUCH, not timed)."""
    times: list[list[float]] = [[] for _ in calls]
    for round_no in range(rounds + 1):
        order = list(enumerate(calls))
        for index, call in order if round_no % 2 else reversed(order):
            if touch:
                await page.evaluate(TOUCH)
            started = time.perf_counter()
            await call()
            if round_no:
                times[index].append((time.perf_counter() - started) * 1000)
    return [statistics.median(each) for each in times]
