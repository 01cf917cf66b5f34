"""Browser-agent figures (issue 3): harness time per step, snapshot tokens, memory per run,
throughput under a simulated model latency against a naive loop, and leaks.

* snapshots:  plain Playwright on each page: aria_snapshot(mode="ai"), the viewport JPEG the agent
              takes and the full-page PNG a naive loop takes; cl100k_base tokens of the raw AI
              snapshot and of `page_model.build_view` of it (uncapped, and with the product's cap).
* steps:      the real agent loop (production server in its own process, Debian Chromium) with a
              scripted model whose turns are instant, scrolling N times per page. Per step, from
              the server's event timestamps: agent:step -> next agent:step, minus the model call
              (agent:processing -> ai:generation). Also the page as the loop sent it to the model.
* memory:     RSS and PSS of the server and all its descendants (Playwright's driver, Chromium),
              peak while 1, 4 and 16 scripted runs each hold a page (`wait`), minus the idle
              server with Chromium already up.
* throughput: C concurrent runs whose actor turns take 3 s (bench/browser_server.py wraps the
              model), against the naive loop (bench/browser_naive.py): see bench/browser_load.py.
* leaks:      200 short runs, then SIGTERM: processes and temp entries left, idle growth.

Pages: tests/fixtures/sites (shop/index, browser/signup, browser/widgets) and generated tables of
1,000 and 3,000 rows (bench/browser_pages.py), served by http.server in a child process.
Run from the repo root: `.venv/bin/python -m bench.bench_browser [--quick] [--only SECTION]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Page, async_playwright

from bench import browser_procs as procs
from bench.browser_load import (
    LOAD_HEADERS,
    LoadCase,
    capacity,
    load_rows,
    load_section,
    rate,
)
from bench.browser_memory import (
    LeakReport,
    MemoryReport,
    leak_section,
    leak_table,
    memory_section,
    memory_table,
)
from bench.browser_pages import ORDINARY, all_pages, rows_name, serve_pages
from bench.browser_report import (
    CHROMIUM,
    Goal,
    environment,
    goal_table,
    load_line,
    ms,
    pct,
    show,
    source_line,
    table,
)
from bench.browser_runs import (
    StepTiming,
    failures,
    first_page_sent,
    one_run,
    scrolls,
    step_timings,
    write_scenario,
)
from bench.browser_server import ServerProcess
from bench.browser_tokens import Counter, token_counter
from outrider.server.browser.page_model import build_view
from outrider.server.browser.refs import RefMap
from outrider.server.browser.secrets import Secrets
from outrider.server.browser.session import VIEWPORT
from outrider.server.chromium import CHROMIUM_FLAGS
from outrider.server.settings.browser import BrowserSettings

SECTIONS = ("snapshots", "steps", "memory", "throughput", "leaks")
LARGE = rows_name(3000)


@dataclass(frozen=True)
class Config:
    aria_rounds: int
    steps: dict[str, int]  # scripted scroll steps per page
    memory_levels: tuple[int, ...]
    hold_seconds: float
    load_tasks: int  # concurrent tasks on the ordinary pages
    large_tasks: int  # concurrent tasks on the 1,000-row page
    settle: float  # seconds after every task's first step before the window opens
    window: float  # seconds of steady state measured
    large_window: float
    leak_runs: int
    leak_concurrency: int


FULL = Config(
    aria_rounds=3,
    steps={"shop": 30, "signup": 30, "widgets": 30, rows_name(1000): 15, LARGE: 15},
    memory_levels=(1, 4, 16),
    hold_seconds=6.0,
    load_tasks=96,
    large_tasks=12,
    settle=3.0,
    window=30.0,
    large_window=40.0,
    leak_runs=200,
    leak_concurrency=8,
)
QUICK = Config(
    aria_rounds=1,
    steps={"shop": 8, "signup": 8, "widgets": 8, rows_name(1000): 4, LARGE: 4},
    memory_levels=(1, 4, 16),
    hold_seconds=4.0,
    load_tasks=16,
    large_tasks=4,
    settle=2.0,
    window=10.0,
    large_window=10.0,
    leak_runs=40,
    leak_concurrency=8,
)


# raw snapshots and tokens (plain Playwright, in this process)


@dataclass(frozen=True)
class RawPage:
    name: str
    snapshot: str
    aria_ms: list[float]
    jpeg_ms: list[float]
    png_ms: list[float]


async def _timed(action: Callable[[], Awaitable[object]]) -> float:
    began = time.perf_counter()
    await action()
    return (time.perf_counter() - began) * 1000


async def _measure_page(page: Page, name: str, rounds: int) -> RawPage:
    snapshot = await page.aria_snapshot(mode="ai", timeout=120_000)  # also warms up
    aria, jpeg, png = [], [], []
    for _ in range(rounds):
        aria.append(await _timed(lambda: page.aria_snapshot(mode="ai", timeout=120_000)))
        jpeg.append(await _timed(lambda: page.screenshot(type="jpeg", quality=70)))
        png.append(await _timed(lambda: page.screenshot(full_page=True, timeout=120_000)))
    return RawPage(name, snapshot, aria, jpeg, png)


async def raw_pages(base: str, rounds: int) -> dict[str, RawPage]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS), headless=True
        )
        results = {}
        for name, path in all_pages().items():
            context = await browser.new_context(viewport=VIEWPORT)
            page = await context.new_page()
            await page.goto(base + path)
            results[name] = await _measure_page(page, name, rounds)
            await context.close()
        await browser.close()
    return results


def snapshot_table(pages: dict[str, RawPage]) -> str:
    rows = [
        [
            p.name,
            f"{len(p.snapshot):,}",
            ms(pct(p.aria_ms, 0.5)),
            ms(max(p.aria_ms)),
            ms(pct(p.jpeg_ms, 0.5)),
            ms(pct(p.png_ms, 0.5)),
        ]
        for p in pages.values()
    ]
    headers = [
        "page",
        "raw AI snapshot chars",
        "aria_snapshot p50 ms",
        "max ms",
        "viewport JPEG ms",
        "full-page PNG ms",
    ]
    return table(headers, rows)


def token_table(pages: dict[str, RawPage], counter: Counter) -> tuple[str, dict[str, float]]:
    """The table and, per page, compressed (uncapped) tokens / raw tokens."""
    cap = BrowserSettings().max_snapshot_chars
    rows, shares = [], {}
    for page in pages.values():
        raw = counter.count(page.snapshot)
        full = build_view(page.snapshot, 1, RefMap(), Secrets(), 10**12)
        capped = build_view(page.snapshot, 1, RefMap(), Secrets(), cap)
        compressed, sent = counter.count(full.text), counter.count(capped.text)
        shares[page.name] = compressed / raw
        rows.append(
            [
                page.name,
                f"{raw:,}",
                f"{compressed:,}",
                f"{100 * compressed / raw:.0f}%",
                f"{sent:,}",
                f"{100 * sent / raw:.0f}%",
                f"{capped.truncated_lines:,}",
            ]
        )
    headers = [
        "page",
        "raw tokens",
        "build_view, no cap",
        "of raw",
        f"build_view, cap {cap:,} chars",
        "of raw",
        "lines cut by the cap",
    ]
    return table(headers, rows), shares


# harness time per step, through the real agent loop


@dataclass(frozen=True)
class PageSteps:
    timings: list[StepTiming]
    sent: str  # the first page message the model was sent (from the scripted model's transcript)


async def step_section(
    server: ServerProcess, base: str, cfg: Config, work: Path
) -> dict[str, PageSteps]:
    results: dict[str, PageSteps] = {}
    warm = write_scenario(work / "warm.yaml", scrolls(2))
    await one_run(server.target, base + ORDINARY["shop"], warm)  # launches Chromium
    for name, path in all_pages().items():
        steps, transcript = cfg.steps[name], work / f"steps-{name}.jsonl"
        model = write_scenario(work / f"steps-{name}.yaml", scrolls(steps), 0.0, transcript)
        record = await one_run(server.target, base + path, model, steps + 5)
        failures([record])
        results[name] = PageSteps(step_timings(record), first_page_sent(transcript))
    return results


def step_table(results: dict[str, PageSteps], raw: dict[str, RawPage]) -> str:
    rows = []
    for name, result in results.items():
        steps = result.timings
        rows.append(
            [
                name,
                len(steps),
                ms(pct([s.overhead for s in steps], 0.5)),
                ms(pct([s.overhead for s in steps], 0.95)),
                ms(pct([s.snapshot for s in steps], 0.5)),
                ms(pct([s.screenshot for s in steps], 0.5)),
                ms(pct([s.action for s in steps], 0.5)),
                ms(pct([s.model for s in steps], 0.5)),
                ms(pct(raw[name].aria_ms, 0.5)) if name in raw else "-",
            ]
        )
    headers = [
        "page",
        "steps",
        "overhead p50 ms",
        "overhead p95 ms",
        "page view p50",
        "screenshot p50",
        "action p50",
        "model call p50 (instant)",
        "raw aria_snapshot p50",
    ]
    return table(headers, rows)


def sent_table(results: dict[str, PageSteps], raw: dict[str, RawPage], counter: Counter) -> str:
    rows = []
    for name, result in results.items():
        sent = counter.count(result.sent)
        raw_tokens = counter.count(raw[name].snapshot) if name in raw else 0
        share = f"{100 * sent / raw_tokens:.0f}%" if raw_tokens else "-"
        kind = "viewport-first" if "very large page" in result.sent else "AI snapshot"
        rows.append([name, kind, f"{len(result.sent):,}", f"{sent:,}", share])
    headers = ["page", "view", "chars sent (page message)", "tokens sent", "of raw AI snapshot"]
    return table(headers, rows)


# goals


def step_goals(results: dict[str, PageSteps]) -> list[Goal]:
    p50 = {name: pct([s.overhead for s in r.timings], 0.5) for name, r in results.items()}
    ordinary = max(ORDINARY, key=lambda name: p50.get(name, 0.0))
    goals = [
        Goal(
            "p50 step overhead <= 150 ms on ordinary pages",
            f"worst p50 {p50[ordinary]:.0f} ms ({ordinary})",
            p50[ordinary] <= 150,
        )
    ]
    if LARGE in p50:
        goals.append(
            Goal(
                "p50 step overhead <= 1 s on the 3,000-row page",
                f"p50 {p50[LARGE]:.0f} ms",
                p50[LARGE] <= 1000,
            )
        )
    return goals


def token_goal(shares: dict[str, float]) -> Goal:
    worst = max(shares, key=lambda name: shares[name])
    best = min(shares, key=lambda name: shares[name])
    return Goal(
        "compressed snapshot <= 60% of raw (build_view, cl100k tokens)",
        f"{100 * shares[best]:.0f}% ({best}) to {100 * shares[worst]:.0f}% ({worst})",
        shares[worst] <= 0.6,
    )


def memory_goal(report: MemoryReport) -> Goal:
    """Judged on PSS: the sum of PSS over processes is the RAM they use (shared pages split)."""
    top = report.levels[-1]
    each = top.per_run
    return Goal(
        "<= 80 MB per concurrent run",
        f"{each.pss_mb:.0f} MB PSS ({each.uss_mb:.0f} MB private, {each.rss_mb:.0f} MB RSS-sum) "
        f"per run at {top.runs} runs",
        each.pss_mb <= 80,
    )


def leak_goal(leaks: LeakReport) -> Goal:
    left = len(leaks.processes_left) + len(leaks.temp_left) + len(leaks.new_tmp_playwright)
    growth = leaks.late.rss_mb - leaks.early.rss_mb
    return Goal(
        "zero leaks",
        f"{left} processes/temp entries left; idle processes "
        f"{leaks.early.processes} -> {leaks.late.processes}; idle RSS {growth:+.0f} MB",
        left == 0 and leaks.late.processes <= leaks.early.processes,
    )


async def machine_sections(base: str, cfg: Config, work: Path, only: set[str]) -> list[Goal]:
    """Memory and leaks, each with a server of its own."""
    goals, allow, url = [], base.removeprefix("http://"), base + ORDINARY["shop"]
    if "memory" in only:
        report = await memory_section(allow, url, cfg.memory_levels, cfg.hold_seconds, work)
        show("Memory per concurrent run (server + driver + Chromium tree)", memory_table(report))
        goals.append(memory_goal(report))
    if "leaks" in only:
        leaks = await leak_section(allow, url, cfg.leak_runs, cfg.leak_concurrency, work)
        show(f"Leaks after {cfg.leak_runs} short runs", leak_table(leaks))
        goals.append(leak_goal(leaks))
    return goals


async def main_async(cfg: Config, only: set[str]) -> None:
    print(f"{environment()}\n{source_line()}; {load_line()} at the start", flush=True)
    busy, began = procs.machine_busy_seconds(), time.perf_counter()
    goals: list[Goal] = []
    with serve_pages() as base, tempfile.TemporaryDirectory(prefix="bench-browser-") as temp:
        work, counter = Path(temp), token_counter()
        raw = await raw_pages(base, cfg.aria_rounds) if only & {"snapshots", "steps"} else {}
        if "snapshots" in only:
            show("Raw snapshot and screenshot times (plain Playwright)", snapshot_table(raw))
            text, shares = token_table(raw, counter)
            show("Snapshot tokens, raw vs compressed", f"Counted with {counter.method}.\n\n{text}")
            goals.append(token_goal(shares))
        if only & {"steps", "throughput"}:
            goals += await server_sections(base, cfg, work, raw, counter, only)
        goals += await machine_sections(base, cfg, work, only)
    show("Goals", goal_table(goals))
    other = procs.machine_busy_seconds() - busy - sum(os.times()[:4])
    print(f"benchmark wall time {time.perf_counter() - began:.0f} s; {load_line()} at the end;")
    print(f"CPU used by other processes during the run: about {max(other, 0):.0f} CPU-seconds")


async def server_sections(
    base: str,
    cfg: Config,
    work: Path,
    raw: dict[str, RawPage],
    counter: Counter,
    only: set[str],
) -> list[Goal]:
    goals: list[Goal] = []
    server = ServerProcess(allow=base.removeprefix("http://"))
    server.start()
    try:
        if "steps" in only:
            results = await step_section(server, base, cfg, work)
            show(
                "Harness time per step, real agent loop, instant scripted model",
                step_table(results, raw),
            )
            show(
                "The page as the agent loop sent it (first step)", sent_table(results, raw, counter)
            )
            goals += step_goals(results)
        if "throughput" in only:
            goals += await throughput(server, base, cfg, work)
    finally:
        server.cleanup()
    return goals


async def throughput(server: ServerProcess, base: str, cfg: Config, work: Path) -> list[Goal]:
    ordinary = [base + path for path in ORDINARY.values()]
    large = [base + all_pages()[rows_name(1000)]]
    cases = [
        LoadCase(
            f"ordinary pages, {cfg.load_tasks} tasks",
            ordinary,
            cfg.load_tasks,
            cfg.settle,
            cfg.window,
        ),
        LoadCase(
            f"1,000-row page, {cfg.large_tasks} tasks",
            large,
            cfg.large_tasks,
            cfg.settle,
            cfg.large_window,
        ),
    ]
    results = await load_section(server, cases, work)
    show("Throughput with a simulated 3 s model latency", table(LOAD_HEADERS, load_rows(results)))
    goals = []
    for result in results:
        if result.agent_runs_ended:
            print(f"  WARNING: {result.agent_runs_ended} agent runs ended inside the window")
        goals.append(
            Goal(
                f"saturation throughput >= 1.5x the naive loop ({result.case.label})",
                f"{result.ratio:.2f}x measured ({rate(result.agent):.2f} vs "
                f"{rate(result.naive):.2f} steps/s); by CPU per step "
                f"{capacity(result.agent) / capacity(result.naive):.2f}x",
                result.ratio >= 1.5,
            )
        )
    return goals


def main() -> None:
    parser = argparse.ArgumentParser(description="Browser-agent benchmarks (issue 3).")
    parser.add_argument("--quick", action="store_true", help="fewer steps and runs")
    parser.add_argument("--only", choices=SECTIONS, action="append", help="run only this section")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up servers and temp dirs
    asyncio.run(main_async(QUICK if args.quick else FULL, set(args.only or SECTIONS)))


if __name__ == "__main__":
    main()
