"""The naive baseline: a plain Playwright loop, the way an agent is often first written.

Per task: a fresh context (same viewport as the product), open the page; then per step a full
`aria_snapshot(mode="ai")`, a full-page PNG screenshot, the simulated model latency (sleep) and
the same action as the scripted agent (a page scroll, alternately down and up). No events, no
persistence, no gRPC. Runs in its own process on its own Chromium, launched with the product's
flags, and is measured like the agent (bench/browser_load.py): once every task has taken its
first step, wait `settle` seconds, then count the steps begun during `window` seconds and the
CPU time spent meanwhile. Every browser call waits at most Playwright's default 30 s: a call that
times out or fails is counted (`failures`) and the task goes on with its next step (a task whose
page never opened stops), so a saturated machine shows up as failures, never as a hang.

`python -m bench.browser_naive URLS TASKS DELAY SETTLE WINDOW` prints one JSON line (URLS is
comma-separated; task i opens URLS[i % len(URLS)]).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from playwright.async_api import Browser, Page, async_playwright
from playwright.async_api import Error as PlaywrightError

from bench import browser_procs as procs
from outrider.server.browser.session import VIEWPORT
from outrider.server.chromium import CHROMIUM_FLAGS

REPO_ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"


@dataclass(frozen=True)
class Window:
    """What happened during the measurement window (of the agent or of the naive loop)."""

    steps: int  # steps begun inside the window
    seconds: float
    harness_ms: list[float]  # per step: everything but the model call / sleep
    cpu: dict[str, float]  # CPU seconds of the system's process tree, by part
    busy: float  # CPU seconds the whole machine was busy
    failures: int = 0  # steps (or page openings) that failed or timed out, over the whole run


@dataclass
class _Tasks:
    starts: list[list[float]]  # per task, when each step began (time.time())
    harness_ms: list[float]
    stop: asyncio.Event
    gave_up: set[int] = field(default_factory=set)  # tasks whose page never opened
    failures: int = 0

    def all_begun(self) -> bool:
        """Every task has begun a step or given up (so a dead task cannot stall the window)."""
        return all(times or i in self.gave_up for i, times in enumerate(self.starts))


async def _task(browser: Browser, url: str, delay: float, state: _Tasks, index: int) -> None:
    context = await browser.new_context(viewport=VIEWPORT)
    try:
        page = await context.new_page()
        try:
            await page.goto(url)
        except PlaywrightError:
            state.failures += 1
            state.gave_up.add(index)
            return
        step = 0
        while not state.stop.is_set():
            state.starts[index].append(time.time())
            try:
                await _step(page, delay, step, state)
            except PlaywrightError:
                state.failures += 1
            step += 1
    finally:
        await context.close()


async def _step(page: Page, delay: float, step: int, state: _Tasks) -> None:
    began = time.perf_counter()
    await page.aria_snapshot(mode="ai")
    await page.screenshot(full_page=True, type="png")
    harness = time.perf_counter() - began
    await asyncio.sleep(delay)
    began = time.perf_counter()
    direction = 1 if step % 2 == 0 else -1
    await page.evaluate("(d) => window.scrollBy(0, d * innerHeight)", direction)
    state.harness_ms.append((harness + time.perf_counter() - began) * 1000)


async def measure_window(
    root: int, ready: Callable[[], bool], settle: float, window: float
) -> tuple[float, float, dict[str, float], float]:
    """Waits until `ready()` (every task has begun a step), then `settle` s; measures `window` s
    of CPU. Returns (window start, window end, CPU seconds by part, machine busy seconds)."""
    while not ready():  # noqa: ASYNC110 - the tasks append as they go; polling is simplest
        await asyncio.sleep(0.05)
    await asyncio.sleep(settle)
    cpu, busy, begin = procs.cpu_by_part(root), procs.machine_busy_seconds(), time.time()
    await asyncio.sleep(window)
    after, end = procs.cpu_by_part(root), time.time()
    used = {part: after[part] - cpu.get(part, 0.0) for part in after}
    return begin, end, used, procs.machine_busy_seconds() - busy


def steps_inside(starts: list[list[float]], begin: float, end: float) -> int:
    return sum(1 for times in starts for t in times if begin <= t < end)


async def naive_loop(
    urls: list[str], tasks: int, delay: float, settle: float, window: float
) -> Window:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS), headless=True
        )
        state = _Tasks([[] for _ in range(tasks)], [], asyncio.Event())
        running = [
            asyncio.create_task(_task(browser, urls[i % len(urls)], delay, state, i))
            for i in range(tasks)
        ]
        try:
            begin, end, cpu, busy = await measure_window(
                os.getpid(), state.all_begun, settle, window
            )
        finally:
            state.stop.set()
            await _finish(running)
            await browser.close()
    steps = steps_inside(state.starts, begin, end)
    return Window(steps, end - begin, state.harness_ms, cpu, busy, state.failures)


async def _finish(running: list[asyncio.Task[None]], patience: float = 10.0) -> None:
    """Lets tasks end their current step for `patience` seconds, then cancels the rest."""
    _, pending = await asyncio.wait(running, timeout=patience)
    for task in pending:
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)


def run_naive(urls: list[str], tasks: int, delay: float, settle: float, window: float) -> Window:
    """The naive loop in a child process (so it has the machine to itself, like the server)."""
    command = [sys.executable, "-m", "bench.browser_naive", ",".join(urls)]
    command += [str(tasks), str(delay), str(settle), str(window)]
    output = subprocess.run(
        command, cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=1800
    ).stdout
    return Window(**json.loads(output.strip().splitlines()[-1]))


def main() -> None:
    urls, tasks, delay, settle, window = sys.argv[1:6]
    result = asyncio.run(
        naive_loop(urls.split(","), int(tasks), float(delay), float(settle), float(window))
    )
    print(json.dumps(asdict(result)))


if __name__ == "__main__":
    main()
