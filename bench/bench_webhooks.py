"""Webhook delivery figures: from a run's end to its webhook received (p50/p99, with 1 and with
100 endpoints), how fast a backlog of 10,000 deliveries drains, and what the outbox costs a run's
start and end.

Each server is a test-server process (ScriptAgent, runs of zero steps) delivering to receivers in
this process (tests/webhooks/receivers.py: the reference library verifies every signature);
PostgreSQL is a private cluster of its own. A run's end is its record's end_time (the server's
clock: the same machine), its receipt the receiver's clock when the request arrived.

Run from the repo root: `.venv/bin/python -m bench.bench_webhooks [--runs N] [--postgres]
[--only latency|cost|store|backlog ...]`.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import grpc

from outrider.server.core import clock
from outrider.server.core.storage import open_store
from outrider.server.core.storage.webhook_rows import EndpointRow
from outrider.server.core.webhooks.notices import run_ended
from outrider.server.core.webhooks.outbox import Outbox
from outrider.v1 import run_pb2
from outrider.v1 import run_service_pb2 as rs
from tests.support.harness import ServerProcess, eventually, settings_for_tests
from tests.support.postgres import PostgresServer
from tests.webhooks.receivers import Receiver
from tests.webhooks.support import Calls, webhook_env

BACKLOG_RUNS, BACKLOG_ENDPOINTS = 100, 100  # 10,000 deliveries


@contextmanager
def server(folder: Path, database_url: str = "", **env: str) -> Iterator[ServerProcess]:
    extra = {"OUTRIDER_DATABASE_URL": database_url} if database_url else {}
    process = ServerProcess(folder, False, False, **webhook_env(), **extra, **env)
    try:
        process.start(timeout=60)
        process.drain()
        yield process
    finally:
        process.close()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(q * len(ordered)), len(ordered) - 1)]


async def ended_at(calls: Calls, run_id: str) -> float:
    """The run's end_time (Unix seconds), once it has one."""
    while True:
        got = await calls.runs.GetRun(rs.GetRunRequest(name=f"runs/{run_id}"))
        if got.run.HasField("end_time"):
            return float(got.run.end_time.ToMicroseconds()) / 1e6
        await asyncio.sleep(0.005)


async def latency(process: ServerProcess, endpoints: int, runs: int) -> dict[str, float]:
    """Runs one at a time; ms from each run's end to its webhook received at the first and at
    the last of `endpoints` endpoints."""
    receiver = Receiver().start()
    arrivals: dict[str, list[float]] = {}
    original = receiver.record

    def record(body: bytes, headers: dict[str, str]) -> None:
        original(body, headers)
        run = receiver.deliveries[-1].data["run"].removeprefix("runs/")
        arrivals.setdefault(run, []).append(time.time())

    receiver.record = record  # type: ignore[method-assign]
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{process.port}") as channel:
            calls = Calls(channel)
            for _ in range(endpoints):
                await calls.endpoint(receiver.url, "run.ended")
            first, last = [], []
            for _ in range(runs):
                run_id = await calls.run(steps=0)
                # nothing polls the server meanwhile: the receiver's clock is read on arrival
                await eventually(partial(_all_arrived, arrivals, run_id, endpoints), 60)
                end = await ended_at(calls, run_id)
                first.append((min(arrivals[run_id]) - end) * 1000)
                last.append((max(arrivals[run_id]) - end) * 1000)
    finally:
        receiver.stop()
    return {
        "first p50": pct(first, 0.5),
        "first p99": pct(first, 0.99),
        "last p50": pct(last, 0.5),
        "last p99": pct(last, 0.99),
    }


def _all_arrived(arrivals: dict[str, list[float]], run_id: str, count: int) -> bool:
    return len(arrivals.get(run_id, [])) >= count


async def backlog(folder: Path, database_url: str) -> dict[str, float]:
    """10,000 deliveries written while no replica delivers, then one replica drains them."""
    receiver = Receiver().start()
    try:
        with server(folder, database_url, OUTRIDER_WEBHOOKS_DELIVER="false") as writer:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{writer.port}") as channel:
                calls = Calls(channel)
                for _ in range(BACKLOG_ENDPOINTS):
                    await calls.endpoint(receiver.url, "run.ended")
                run_ids = [await calls.run(steps=0) for _ in range(BACKLOG_RUNS)]
                for run_id in run_ids:
                    await ended_at(calls, run_id)
        total = BACKLOG_RUNS * BACKLOG_ENDPOINTS
        began = time.perf_counter()
        with server(folder, database_url):
            await eventually(lambda: len(receiver.deliveries) >= total, within=1800)
            seconds = time.perf_counter() - began
    finally:
        receiver.stop()
    return {"deliveries": total, "seconds": seconds, "per second": total / seconds}


async def run_cost(process: ServerProcess, runs: int, endpoints: int) -> dict[str, float]:
    """ms of a CreateRun round trip (the start) and from the run's creation to its end_time
    (its record ended with the notice in the same transaction)."""
    receiver = Receiver().start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{process.port}") as channel:
            calls = Calls(channel)
            for _ in range(endpoints):
                await calls.endpoint(receiver.url, "run.ended")
            starts, ends = [], []
            for _ in range(runs):
                began = time.perf_counter()
                run_id = await calls.run(steps=0)
                starts.append((time.perf_counter() - began) * 1000)
                got = await calls.runs.GetRun(rs.GetRunRequest(name=f"runs/{run_id}"))
                created = got.run.create_time.ToMicroseconds() / 1e6
                ends.append((await ended_at(calls, run_id) - created) * 1000)
    finally:
        receiver.stop()
    return {"start p50": pct(starts, 0.5), "created->ended p50": pct(ends, 0.5)}


async def store_cost(folder: Path, database_url: str, writes: int) -> dict[str, float]:
    """µs per ended run's record committed alone, and with its notice reported as a run's end
    reports it (`Outbox.report`, in the same transaction): to a tenant with no endpoint, which the
    store knows without a query on SQLite; with the notice's statements written anyway (what
    every run's end did before the store knew); and to one endpoint (message and delivery
    written). The variants alternate run by run, so the machine's load falls on each alike."""
    settings = settings_for_tests(folder, database_url=database_url or None)
    store = open_store(settings)
    outbox = Outbox(store)
    store.save_endpoint(EndpointRow("bench", "listened", "https://example.com/h"))

    def reported(run: run_pb2.Run) -> None:
        outbox.report(run_ended(run, run.name.removeprefix("runs/")))

    def written_anyway(run: run_pb2.Run) -> None:
        notice = run_ended(run, run.name.removeprefix("runs/"))
        store.add_message(notice.message(clock.now_us()), fenced=True)

    # label: (the run's tenant, what its end writes besides its record)
    variants: dict[str, tuple[str, Callable[[run_pb2.Run], None] | None]] = {
        "record alone": ("quiet", None),
        "+ notice, no endpoint": ("quiet", reported),
        "+ notice written anyway, no endpoint": ("quiet", written_anyway),
        "+ notice, 1 endpoint": ("listened", reported),
    }
    spent: dict[str, list[float]] = {label: [] for label in variants}
    try:
        for number in range(writes):
            for index, (label, (tenant, notice)) in enumerate(variants.items()):
                run_id = f"r{number}v{index}"
                run = run_pb2.Run(name=f"runs/{run_id}", tenant=tenant)
                run.state = run_pb2.RUN_STATE_SUCCEEDED
                began = time.perf_counter()
                with store.together():
                    store.save_run(run, run_id)
                    if notice is not None:
                        notice(run)
                await store.committed()  # before the next, as each run's end is
                spent[label].append((time.perf_counter() - began) * 1e6)
    finally:
        await asyncio.sleep(0)  # SQLite's scheduled commits run before the file closes
        store.close()
    figures = {f"{label} p50": pct(times, 0.5) for label, times in spent.items()}
    return figures | {f"{label} mean": sum(times) / writes for label, times in spent.items()}


def show(title: str, figures: dict[str, float]) -> None:
    print(f"{title}: " + ", ".join(f"{k} {v:.1f}" for k, v in figures.items()), flush=True)


SECTIONS = ("latency", "cost", "store", "backlog")


async def main(runs: int, postgres: bool, sections: tuple[str, ...]) -> None:
    pg = PostgresServer() if postgres else None
    backend = "PostgreSQL" if pg else "SQLite"

    def database() -> str:
        return pg.create_database() if pg else ""

    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            if "latency" in sections:
                with server(folder / "one", database()) as process:
                    figures = await latency(process, 1, runs)
                    show(f"{backend}, 1 endpoint, end -> received ms", figures)
                with server(folder / "hundred", database()) as process:
                    figures = await latency(process, 100, max(runs // 5, 5))
                    show(f"{backend}, 100 endpoints, end -> received ms", figures)
            for round_ in range(3) if "cost" in sections else ():
                for endpoints in (0, 1):  # interleaved: without and with an endpoint
                    with server(folder / f"cost{round_}{endpoints}", database()) as process:
                        figures = await run_cost(process, runs, endpoints)
                        show(f"{backend}, {endpoints} endpoint(s), round {round_}, ms", figures)
            for round_ in range(3) if "store" in sections else ():
                figures = await store_cost(folder / f"store{round_}", database(), runs * 20)
                show(f"{backend}, store, round {round_}, µs per ended run", figures)
            if "backlog" in sections:
                figures = await backlog(folder / "b", database())
                show(f"{backend}, backlog drained by one replica", figures)
    finally:
        if pg is not None:
            pg.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--only", choices=SECTIONS, action="append", help="repeatable")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.runs, arguments.postgres, tuple(arguments.only or SECTIONS)))
