"""Throughput at saturation with a simulated model latency: the real agent (server process, actor
turns delayed 3 s in the model wrapper) against the naive loop (bench/browser_naive.py), with the
same number of tasks, pages, delay and action, one after the other so that each has the machine.

Both are measured the same way, in steady state: every task keeps stepping; once all of them have
begun their first step (contexts created, pages open, and for the agent the instant planning
turn done) and `settle` more seconds have passed, the steps begun during a `window` are counted
and the CPU time of the system's process tree over that window is read from /proc. The agent's
runs are then cancelled (the calls set cancel_on_disconnect), the naive tasks told to stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
from dataclasses import dataclass
from pathlib import Path

from bench import browser_procs as procs
from bench.browser_naive import Window, measure_window, run_naive, steps_inside
from bench.browser_report import pct
from bench.browser_runs import (
    Event,
    RunRecord,
    automate,
    channel,
    scrolls,
    step_timings,
    write_scenario,
)
from bench.browser_server import ServerProcess
from outrider.v1 import run_service_pb2_grpc

MODEL_DELAY = 3.0
ENOUGH_STEPS = 90  # scripted steps per run: more than any window uses (at most 100 allowed)


@dataclass(frozen=True)
class LoadCase:
    label: str
    urls: list[str]  # task i opens urls[i % len(urls)]
    tasks: int
    settle: float
    window: float


def rate(result: Window) -> float:
    return result.steps / result.seconds


def cpu_ms_per_step(result: Window) -> float:
    """The system's own CPU per step; the agent's client (reading the event streams in the
    benchmark process) is shown apart and not counted."""
    own = sum(v for part, v in result.cpu.items() if part != "client")
    return 1000 * own / result.steps if result.steps else float("nan")


def capacity(result: Window) -> float:
    """Steps per second the machine's CPUs could carry at this CPU cost per step."""
    return len(os.sched_getaffinity(0)) * 1000 / cpu_ms_per_step(result)


def busy_share(result: Window) -> float:
    """How busy the machine's CPUs were during the window (1.0 = all of them, all the time)."""
    return result.busy / result.seconds / len(os.sched_getaffinity(0))


def other_share(result: Window) -> float:
    """The share of the machine used by processes outside the measured system (other work)."""
    own = sum(result.cpu.values())
    return max(0.0, result.busy - own) / result.seconds / len(os.sched_getaffinity(0))


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _step_starts(events: list[Event]) -> list[float]:
    return [e.at_ms / 1000 for e in events if e.name == "agent:step"]


def _all_stepping(events: list[list[Event]], calls: list[asyncio.Task[RunRecord]]) -> bool:
    """True once every run has begun a step; raises if a run ended before that."""
    for call in calls:
        if call.done():
            error = call.exception() or call.result().error
            raise RuntimeError(f"an agent run ended before the measurement: {error}")
    return all(_step_starts(e) for e in events)


async def _quiet(pid: int, processes: int, patience: float = 30.0) -> None:
    """Waits until the server's tree is back to `processes` (cancelled runs closed)."""
    for _ in range(int(patience / 0.2)):
        if len(procs.tree(pid)) <= processes:
            return
        await asyncio.sleep(0.2)


async def agent_window(server: ServerProcess, case: LoadCase, work: Path) -> tuple[Window, int]:
    """The agent measured over the window; also how many runs ended before it closed."""
    model = write_scenario(work / "load.yaml", scrolls(ENOUGH_STEPS), MODEL_DELAY)
    events: list[list[Event]] = [[] for _ in range(case.tasks)]
    idle = len(procs.tree(server.pid))
    async with channel(server.target) as chan:
        runs = run_service_pb2_grpc.RunServiceStub(chan)
        calls = [
            asyncio.create_task(
                automate(runs, case.urls[i % len(case.urls)], model, ENOUGH_STEPS + 5, events[i])
            )
            for i in range(case.tasks)
        ]
        client = _self_cpu()
        begin, end, cpu, busy = await measure_window(
            server.pid, lambda: _all_stepping(events, calls), case.settle, case.window
        )
        cpu["client"] = _self_cpu() - client
        ended = sum(1 for call in calls if call.done())
        for call in calls:
            call.cancel()
        for call in calls:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await call
    await _quiet(server.pid, idle)
    starts = [_step_starts(e) for e in events]
    records = [RunRecord(e, False, "", 0.0) for e in events]
    harness = [t.overhead for r in records for t in step_timings(r)]
    return Window(steps_inside(starts, begin, end), end - begin, harness, cpu, busy), ended


def naive_window(case: LoadCase) -> Window:
    return run_naive(case.urls, case.tasks, MODEL_DELAY, case.settle, case.window)


@dataclass(frozen=True)
class LoadResult:
    case: LoadCase
    agent: Window
    naive: Window
    agent_runs_ended: int  # runs that stopped before the window closed (should be 0)

    @property
    def ratio(self) -> float:
        naive = rate(self.naive)
        return rate(self.agent) / naive if naive else float("inf")


async def load_section(
    server: ServerProcess, cases: list[LoadCase], work: Path
) -> list[LoadResult]:
    out = []
    for case in cases:
        agent, ended = await agent_window(server, case, work)
        naive = await asyncio.to_thread(naive_window, case)
        out.append(LoadResult(case, agent, naive, ended))
    return out


def _cpu_text(result: Window) -> str:
    if not result.steps:
        return "no steps"
    parts = "/".join(f"{1000 * v / result.steps:.0f}" for v in result.cpu.values())
    return f"{cpu_ms_per_step(result):.0f} ({parts})"


def load_rows(results: list[LoadResult]) -> list[list[object]]:
    rows: list[list[object]] = []
    for result in results:
        case = result.case
        for system, window in (("agent", result.agent), ("naive", result.naive)):
            rows.append(
                [
                    case.label,
                    system,
                    f"{window.steps} in {window.seconds:.0f} s",
                    str(result.agent_runs_ended if system == "agent" else window.failures),
                    f"{case.tasks / MODEL_DELAY:.1f}",
                    f"{rate(window):.2f}",
                    f"{pct(window.harness_ms, 0.5):,.0f}",
                    _cpu_text(window),
                    f"{capacity(window):.1f}",
                    f"{100 * busy_share(window):.0f}% ({100 * other_share(window):.0f}%)",
                ]
            )
        rows.append(
            [
                case.label,
                "**agent / naive**",
                "",
                "",
                "",
                f"**{result.ratio:.2f}x**",
                "",
                f"{cpu_ms_per_step(result.agent) / cpu_ms_per_step(result.naive):.2f}x",
                f"{capacity(result.agent) / capacity(result.naive):.2f}x",
                "",
            ]
        )
    return rows


LOAD_HEADERS = [
    "case",
    "system",
    "steps in the window",
    "failures (agent: runs ended early; naive: failed calls)",
    "ceiling steps/s (tasks / 3 s)",
    "steps/s",
    "harness ms/step p50",
    "CPU ms/step (python/driver/chromium[/client])",
    "CPU-bound capacity steps/s",
    "machine busy (other processes)",
]
