"""Overload: many browser runs started at once on this 2-core machine must all succeed.

The production server (bench/browser_server.py: real browser agent, Debian Chromium) gets --tasks
runs at the same moment, each a scripted task of --steps page scrolls with a simulated model
latency of --delay seconds per actor turn, on the ordinary fixture pages. Two configurations:

- queued: OUTRIDER_MAX_CONCURRENT_RUNS=--slots; the rest wait in line (admission control);
- all at once: every run admitted immediately (slots = tasks), as before admission control.

For each: runs succeeded / failed (with the first failure), wall time from the first request to
the last run's end, and runs per minute; --repeat rounds (the target asks for stability over three).

Run from the repo root: `.venv/bin/python -m bench.bench_overload [--tasks 32] [--slots 8]`.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.browser_pages import ORDINARY, serve_pages
from bench.browser_runs import RunRecord, automate, channel, scrolls, write_scenario
from bench.browser_server import ServerProcess
from outrider.v1 import run_service_pb2_grpc


@dataclass(frozen=True)
class Round:
    config: str
    records: list[RunRecord]
    seconds: float

    @property
    def failed(self) -> list[RunRecord]:
        return [r for r in self.records if not r.success]


async def one_round(target: str, base: str, model: str, tasks: int, steps: int) -> Round:
    pages = [base + path for path in ORDINARY.values()]
    began = time.perf_counter()
    async with channel(target) as chan:
        runs = run_service_pb2_grpc.RunServiceStub(chan)
        calls = [automate(runs, pages[i % len(pages)], model, steps + 5) for i in range(tasks)]
        records = list(await asyncio.gather(*calls))
    return Round("", records, time.perf_counter() - began)


def measure(config: str, slots: int, args: argparse.Namespace, base: str, work: Path) -> None:
    model = write_scenario(work / "overload.yaml", scrolls(args.steps), args.delay)
    server = ServerProcess(allow=base.removeprefix("http://"), max_runs=slots)
    server.start()
    try:
        for _ in range(args.repeat):
            result = asyncio.run(one_round(server.target, base, model, args.tasks, args.steps))
            report(Round(config, result.records, result.seconds))
    finally:
        server.cleanup()


def report(result: Round) -> None:
    ok = len(result.records) - len(result.failed)
    rate = 60 * ok / result.seconds
    first = f" (first: {result.failed[0].error[:120]})" if result.failed else ""
    print(
        f"| {result.config} | {len(result.records)} | {ok} | {len(result.failed)}{first} "
        f"| {result.seconds:.1f} | {rate:.1f} |",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=32)
    parser.add_argument("--slots", type=int, default=8)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--delay", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-unqueued", action="store_true")
    args = parser.parse_args()
    print(f"{args.tasks} runs at once, {args.steps} steps, {args.delay} s model latency")
    print("| config | runs | succeeded | failed | wall s | runs/min |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    with serve_pages() as base, tempfile.TemporaryDirectory() as work:
        measure(f"queued ({args.slots} slots)", args.slots, args, base, Path(work))
        if not args.skip_unqueued:
            measure("all at once", args.tasks, args, base, Path(work))


if __name__ == "__main__":
    main()
