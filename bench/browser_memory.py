"""Memory per concurrent run, and what is left after many runs. Each section starts its own
server process (bench/browser_server.py) with a private TMPDIR, and measures the server with all
its descendants (Playwright's node driver, Chromium and its renderers) from /proc."""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench import browser_procs as procs
from bench.browser_report import table
from bench.browser_runs import RunRecord, failures, one_run, scrolls, wait, write_scenario
from bench.browser_server import ServerProcess


async def _settled_memory(pid: int) -> procs.Memory:
    await asyncio.sleep(1.5)  # closed contexts' renderers exit
    return procs.memory(pid)


# memory per concurrent run


@dataclass(frozen=True)
class MemoryLevel:
    runs: int
    peak: procs.Memory
    per_run: procs.Memory  # (peak - idle) / runs
    failed: int


@dataclass(frozen=True)
class MemoryReport:
    idle: procs.Memory
    levels: list[MemoryLevel]


async def memory_section(
    allow: str, url: str, levels: Sequence[int], hold: float, work: Path
) -> MemoryReport:
    server = ServerProcess(allow)
    server.start()
    try:
        await one_run(server.target, url, write_scenario(work / "warm.yaml", scrolls(2)))
        idle = await _settled_memory(server.pid)
        model = write_scenario(work / "hold.yaml", wait(hold))
        out = []
        for count in levels:
            sampler = procs.PeakSampler(server.pid)
            async with procs.sampling(sampler):
                records = await asyncio.gather(
                    *(one_run(server.target, url, model) for _ in range(count))
                )
            grown = sampler.peak.minus(idle)
            per_run = grown.per(count)
            out.append(MemoryLevel(count, sampler.peak, per_run, failures(records)))
            await _settled_memory(server.pid)
        return MemoryReport(idle, out)
    finally:
        server.cleanup()


def memory_table(report: MemoryReport) -> str:
    def figures(memory: procs.Memory) -> list[object]:
        return [f"{memory.rss_mb:,.0f}", f"{memory.pss_mb:,.0f}", f"{memory.uss_mb:,.0f}"]

    rows: list[list[object]] = [
        ["idle server, Chromium up", *figures(report.idle), report.idle.processes, "-", "-", "-"]
    ]
    for level in report.levels:
        label = f"{level.runs} concurrent" + (f" ({level.failed} failed)" if level.failed else "")
        each = level.per_run
        per_run = [f"{v:,.1f}" for v in (each.pss_mb, each.uss_mb, each.rss_mb)]
        rows.append([label, *figures(level.peak), level.peak.processes, *per_run])
    headers = [
        "runs holding a page",
        "peak RSS MB (sum)",
        "peak PSS MB",
        "peak USS MB",
        "processes",
        "PSS MB per run",
        "USS MB per run",
        "RSS-sum MB per run",
    ]
    return table(headers, rows)


# leaks


@dataclass(frozen=True)
class LeakReport:
    runs: int
    failed: int
    early: procs.Memory  # settled, after the first batch
    late: procs.Memory  # settled, after all runs
    server_rss: tuple[float, float]  # the server process alone: (early, late)
    kinds: tuple[dict[str, tuple[int, float]], ...]  # (early, late): kind -> (count, RSS MB)
    exit_code: int
    processes_left: list[str]
    temp_left: list[str]  # entries in the server's private TMPDIR after it stopped
    new_tmp_playwright: list[str]  # new /tmp/playwright* entries (any process on the machine)


def _playwright_entries() -> set[str]:
    return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("playwright")}


async def _limited(
    job: Callable[[], Awaitable[RunRecord]], count: int, limit: int
) -> list[RunRecord]:
    gate = asyncio.Semaphore(limit)

    async def one() -> RunRecord:
        async with gate:
            return await job()

    return await asyncio.gather(*(one() for _ in range(count)))


async def _survivors(seen: set[procs.ProcessId], patience: float = 5.0) -> list[procs.ProcessId]:
    """The processes seen during the runs that are still there after `patience` seconds."""
    deadline = time.monotonic() + patience
    while True:
        left = [p for p in seen if procs.alive(p)]
        if not left or time.monotonic() > deadline:
            return left
        await asyncio.sleep(0.1)


async def leak_section(allow: str, url: str, runs: int, limit: int, work: Path) -> LeakReport:
    before = _playwright_entries()
    server = ServerProcess(allow)
    server.start()
    try:
        model = write_scenario(work / "short.yaml", scrolls(1))
        sampler = procs.PeakSampler(server.pid, interval=0.5)
        async with procs.sampling(sampler):
            job = lambda: one_run(server.target, url, model)  # noqa: E731
            first = await _limited(job, limit, limit)
            early = await _settled_memory(server.pid)
            early_rss, early_kinds = procs.rss_mb(server.pid), procs.kinds(server.pid)
            rest = await _limited(job, runs - limit, limit)
            late = await _settled_memory(server.pid)
            late_rss, late_kinds = procs.rss_mb(server.pid), procs.kinds(server.pid)
        exit_code = server.stop()
        left = await _survivors(sampler.seen)
        stray = [pid for pid in procs.tree(1) if str(server.tmp) in procs.command(pid)]
        records = [*first, *rest]
        return LeakReport(
            runs=len(records),
            failed=failures(records),
            early=early,
            late=late,
            server_rss=(early_rss, late_rss),
            kinds=(early_kinds, late_kinds),
            exit_code=exit_code,
            processes_left=sorted(
                {procs.describe(p[0]) for p in left} | set(map(procs.describe, stray))
            ),
            temp_left=sorted(p.name for p in server.tmp.iterdir()),
            new_tmp_playwright=sorted(_playwright_entries() - before),
        )
    finally:
        server.cleanup()


def kinds_table(early: dict[str, tuple[int, float]], late: dict[str, tuple[int, float]]) -> str:
    """The idle tree by kind of process, after the first batch and after all runs."""
    rows = []
    for name in sorted(set(early) | set(late)):
        (n0, rss0), (n1, rss1) = early.get(name, (0, 0.0)), late.get(name, (0, 0.0))
        rows.append([name, f"{n0} -> {n1}", f"{rss0:,.0f} -> {rss1:,.0f} ({rss1 - rss0:+,.0f})"])
    return table(["idle process kind", "count", "RSS MB"], rows)


def leak_table(report: LeakReport) -> str:
    early, late = report.early, report.late
    rows = [
        ["runs (failed)", f"{report.runs} ({report.failed})"],
        ["server exit code after SIGTERM", report.exit_code],
        ["processes left after the server stopped", len(report.processes_left)],
        ["entries left in the server's private TMPDIR", len(report.temp_left)],
        ["new /tmp/playwright* entries (whole machine)", len(report.new_tmp_playwright)],
        [
            "idle tree processes, after the first batch -> after all runs",
            f"{early.processes} -> {late.processes}",
        ],
        [
            "idle tree RSS MB, after the first batch -> after all runs",
            f"{early.rss_mb:,.0f} -> {late.rss_mb:,.0f} ({late.rss_mb - early.rss_mb:+,.0f})",
        ],
        [
            "server process RSS MB, after the first batch -> after all runs",
            f"{report.server_rss[0]:,.0f} -> {report.server_rss[1]:,.0f} "
            f"({report.server_rss[1] - report.server_rss[0]:+,.0f})",
        ],
        [
            "idle tree PSS MB, after the first batch -> after all runs",
            f"{early.pss_mb:,.0f} -> {late.pss_mb:,.0f} ({late.pss_mb - early.pss_mb:+,.0f})",
        ],
    ]
    text = table(["", "value"], rows)
    text += "\n\n" + kinds_table(*report.kinds)
    leftovers = report.temp_left + report.new_tmp_playwright
    for title, items in (("processes left", report.processes_left), ("temp left", leftovers)):
        if items:
            text += f"\n\n{title}: " + "; ".join(items[:10])
    return text
