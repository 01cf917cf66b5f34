"""Scale-out: scripted-model browser runs per minute with 1, 2 and 3 replica processes sharing
one PostgreSQL database.

Each configuration starts N production servers (bench/browser_server.py: the real browser agent,
each with its own Debian Chromium) on one private PostgreSQL cluster, then starts --tasks runs at
the same moment, dealt round-robin to the replicas as a load balancer would (each run executes on
the replica that took its call, today's dispatch), each a scripted task of --steps page scrolls
with a simulated model latency of --delay seconds per actor turn, on the ordinary fixture pages.
Each replica admits --slots runs at once (OUTRIDER_MAX_CONCURRENT_RUNS), so N replicas drive N x
slots runs at once. Reported: runs succeeded/failed, wall time, runs per minute, and the ratio
to one replica. --repeat rounds per configuration, configurations interleaved.

Run from the repo root: `.venv/bin/python -m bench.bench_workers [--tasks 24] [--slots 4]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from bench.browser_pages import ORDINARY, serve_pages
from bench.browser_runs import RunRecord, automate, channel, scrolls, write_scenario
from bench.browser_server import ServerProcess
from outrider.v1 import run_service_pb2_grpc
from tests.support.postgres import PostgresServer


async def one_round(
    targets: list[str], base: str, model: str, tasks: int, steps: int
) -> tuple[list[RunRecord], float]:
    pages = [base + path for path in ORDINARY.values()]
    channels = [channel(target) for target in targets]
    stubs = [run_service_pb2_grpc.RunServiceStub(c) for c in channels]
    began = time.perf_counter()
    calls = [
        automate(stubs[i % len(stubs)], pages[i % len(pages)], model, steps + 5)
        for i in range(tasks)
    ]
    records = list(await asyncio.gather(*calls))
    seconds = time.perf_counter() - began
    for chan in channels:
        await chan.close()
    return records, seconds


def measure(replicas: int, args: argparse.Namespace, base: str, model: str, url: str) -> float:
    servers = [
        ServerProcess(
            allow=base.removeprefix("http://"),
            max_runs=args.slots,
            OUTRIDER_DATABASE_URL=url,
            OUTRIDER_FAILOVER_INTERVAL="0",
        )
        for _ in range(replicas)
    ]
    try:
        for server in servers:
            server.start()
        records, seconds = asyncio.run(
            one_round([s.target for s in servers], base, model, args.tasks, args.steps)
        )
    finally:
        for server in servers:
            server.cleanup()
    ok = sum(1 for r in records if r.success)
    failed = [r for r in records if not r.success]
    first = f" (first: {failed[0].error[:100]})" if failed else ""
    rate = 60 * ok / seconds
    load = os.getloadavg()[0]
    print(
        f"| {replicas} | {len(records)} | {ok} | {len(failed)}{first} | {seconds:.1f} "
        f"| {rate:.1f} | {load:.1f} |",
        flush=True,
    )
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=24)
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    print(
        f"{args.tasks} runs at once, {args.steps} steps, {args.delay} s model latency, "
        f"{args.slots} slots per replica, {os.cpu_count()} CPUs"
    )
    print("| replicas | runs | succeeded | failed | wall s | runs/min | load |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rates: dict[int, list[float]] = {1: [], 2: [], 3: []}
    postgres = PostgresServer()
    try:
        with serve_pages() as base, tempfile.TemporaryDirectory() as work:
            model = write_scenario(Path(work) / "workers.yaml", scrolls(args.steps), args.delay)
            for _ in range(args.repeat):
                for replicas in rates:
                    url = postgres.create_database()
                    rates[replicas].append(measure(replicas, args, base, model, url))
    finally:
        postgres.close()
    one = sum(rates[1]) / len(rates[1])
    for replicas, found in rates.items():
        mean = sum(found) / len(found)
        print(f"{replicas} replica(s): {mean:.1f} runs/min on average, {mean / one:.2f}x one")


if __name__ == "__main__":
    main()
