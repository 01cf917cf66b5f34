"""Cross-replica event delivery on PostgreSQL against one process on SQLite.

Starts the test server (ScriptAgent, no model, no browser) as child processes: once a single
process on SQLite, then two processes on one private PostgreSQL cluster (as the tests start it).
Each round starts RUNS runs of STEPS steps on the first process and watches every run on the last
one (the same process for SQLite). Latency is the watcher's receive time minus the event's own
time (stamped when the executing process appended it; one machine, one clock), for the events
appended after the watcher asked; events/s is the events every watcher received divided by the
wall time of the round.

Run from the repo root: `.venv/bin/python -m bench.bench_pg_events [runs] [steps]`.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import grpc

from outrider.v1 import run_service_pb2, run_service_pb2_grpc
from tests.support.harness import ServerProcess
from tests.support.postgres import PostgresServer
from tests.support.requests import automate_request


async def watch(stub: run_service_pb2_grpc.RunServiceStub, name: str) -> list[float]:
    """Milliseconds from each live event's time to its arrival here (events appended before the
    watcher asked are history, not delivery, and are left out)."""
    delays = []
    request = run_service_pb2.StreamRunEventsRequest(name=name)
    asked = time.time() * 1000
    async for response in stub.StreamRunEvents(request):
        if response.HasField("event") and response.event.time.ToMilliseconds() > asked:
            delays.append(time.time() * 1000 - response.event.time.ToMilliseconds())
    return delays


async def round_trip(ports: list[int], runs: int, steps: int) -> tuple[list[float], float]:
    first = grpc.aio.insecure_channel(f"127.0.0.1:{ports[0]}")
    last = grpc.aio.insecure_channel(f"127.0.0.1:{ports[-1]}")
    starter = run_service_pb2_grpc.RunServiceStub(first)
    watcher = run_service_pb2_grpc.RunServiceStub(last)
    began = time.monotonic()
    watchers = []
    for _ in range(runs):
        request = automate_request(steps=steps, interval=0.01)
        run = await starter.CreateRun(run_service_pb2.CreateRunRequest(automate=request.params))
        watchers.append(asyncio.create_task(watch(watcher, run.run.name)))
    delays = [d for got in await asyncio.gather(*watchers) for d in got]
    wall = time.monotonic() - began
    await first.close()
    await last.close()
    return delays, len(delays) / wall


def report(label: str, delays: list[float], rate: float) -> None:
    cuts = statistics.quantiles(delays, n=100)
    print(f"{label:<34} {len(delays):>7} {cuts[49]:>8.2f} {cuts[98]:>8.2f} {rate:>9.0f}")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    print(f"{runs} runs x {steps} steps, a step every 10 ms per run")
    print(f"{'setup':<34} {'events':>7} {'p50 ms':>8} {'p99 ms':>8} {'events/s':>9}")
    with tempfile.TemporaryDirectory() as scratch:
        single = ServerProcess(Path(scratch) / "sqlite")
        try:
            single.start()
            report("SQLite, one process", *asyncio.run(round_trip([single.port], runs, steps)))
        finally:
            single.close()
        postgres = PostgresServer()
        url = postgres.create_database()
        replicas = [ServerProcess(Path(scratch) / name, OUTRIDER_DATABASE_URL=url) for name in "ab"]
        try:
            ports = [replica.start() for replica in replicas]
            report("PostgreSQL, same process", *asyncio.run(round_trip(ports[:1], runs, steps)))
            report(
                "PostgreSQL, start on A, watch on B", *asyncio.run(round_trip(ports, runs, steps))
            )
        finally:
            for replica in replicas:
                replica.close()
            postgres.close()


if __name__ == "__main__":
    main()
