"""The three-replica kill drill, many times: one owner per run, and how long the lost runs wait.

Two test-server processes (ScriptAgent, no model) survive on one private PostgreSQL cluster, each
already executing a run of its own; in each drill a fresh replica A starts `--orphans` holding
runs and is SIGKILLed. The survivors sweep every `--interval` seconds and split A's runs between
them. Per drill, it records:
- when each lost run was resumed (its `run_resumed` event, as stored), from the kill; the drill's
  figure is its last one (all orphans resumed);
- double adoptions: a run resumed more than once, claimed more than once (`runs.takeovers` > 1),
  or stopped by a survivor because another took it ("was taken over by another replica");
- after every run of the drill was cancelled: runs whose history holds other than exactly one
  `complete` and one `done`.

Run from the repo root:
`.venv/bin/python -m bench.bench_adoption [--drills 50] [--orphans 5] [--interval 1]`.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import psycopg

from bench.bench_failover import Cluster, figures, load
from outrider.server.core.events.names import event_name
from outrider.server.core.storage import ACTIVE_STATES
from outrider.v1 import run_event_pb2, run_service_pb2, run_service_pb2_grpc
from tests.support.harness import ServerProcess
from tests.support.postgres import PostgresServer
from tests.support.requests import automate_request

MOVED = "was taken over by another replica"


@dataclass
class Tally:
    all_resumed: list[float] = field(default_factory=list)  # per drill, seconds after the kill
    each_resumed: list[float] = field(default_factory=list)  # per run
    double_adoptions: int = 0
    not_one_ending: int = 0
    runs: int = 0


async def drill(
    cluster: Cluster, survivors: list[ServerProcess], orphans: int, tally: Tally
) -> None:
    victim = cluster.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{victim.port}") as channel:
        stub = run_service_pb2_grpc.RunServiceStub(channel)
        names = []
        for _ in range(orphans):
            request = automate_request(steps=1, hold=True)
            created = await stub.CreateRun(
                run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
            )
            names.append(created.run.name.removeprefix("runs/"))
    await until(lambda: all(started(cluster.url, name) for name in names), 60)
    killed = time.time()
    victim.kill()
    await until(lambda: all(resumed(cluster.url, name) for name in names), 120)
    times = [resumed(cluster.url, name) - killed for name in names]
    tally.each_resumed += times
    tally.all_resumed.append(max(times))
    await cancel_all(survivors[0], names)
    histories = {name: event_names(cluster.url, name) for name in names}
    claims = takeovers(cluster.url, names)
    moved = sum("".join(s.tail).count(MOVED) for s in survivors)
    tally.double_adoptions += moved + sum(
        1 for name in names if histories[name]["run_resumed"] > 1 or claims[name] > 1
    )
    tally.not_one_ending += sum(
        1 for h in histories.values() if (h["complete"], h["done"]) != (1, 1)
    )
    tally.runs += len(names)
    for survivor in survivors:
        survivor.tail.clear()


def started(url: str, run_id: str) -> bool:
    return event_names(url, run_id)["agent:action"] > 0


def resumed(url: str, run_id: str) -> float:
    """Epoch seconds of the run's first `run_resumed` event; 0.0 before it."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT body FROM events WHERE run_id = %s", (run_id,)).fetchall()
    for (body,) in rows:
        event = run_event_pb2.RunEvent.FromString(body)
        if event.HasField("run_resumed"):
            return float(event.time.ToMicroseconds()) / 1e6
    return 0.0


def event_names(url: str, run_id: str) -> Counter[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT body FROM events WHERE run_id = %s", (run_id,)).fetchall()
    return Counter(event_name(run_event_pb2.RunEvent.FromString(body)) for (body,) in rows)


def takeovers(url: str, run_ids: list[str]) -> dict[str, int]:
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT id, takeovers FROM runs WHERE id = ANY(%s)", (run_ids,)
        ).fetchall()
    return {str(run_id): int(count) for run_id, count in rows}


async def cancel_all(survivor: ServerProcess, run_ids: list[str]) -> None:
    """Cancels the drill's runs through one survivor (relayed to their executor) and waits for
    every one to have ended."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{survivor.port}") as channel:
        stub = run_service_pb2_grpc.RunServiceStub(channel)
        for run_id in run_ids:
            await stub.CancelRun(run_service_pb2.CancelRunRequest(name=f"runs/{run_id}"))

        async def ended() -> bool:
            for run_id in run_ids:
                run = await stub.GetRun(run_service_pb2.GetRunRequest(name=f"runs/{run_id}"))
                if run.run.state in ACTIVE_STATES:
                    return False
            return True

        deadline = time.monotonic() + 60
        while not await ended():
            if time.monotonic() > deadline:
                raise RuntimeError("the drill's runs did not end")
            await asyncio.sleep(0.2)


async def until(check: object, within: float) -> None:
    deadline = time.monotonic() + within
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise RuntimeError(f"not within {within} s")
        await asyncio.sleep(0.05)


async def own_run(survivor: ServerProcess) -> None:
    """A run each survivor executes throughout (so the spread weighs real loads)."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{survivor.port}") as channel:
        request = automate_request(steps=1, hold=True)
        await run_service_pb2_grpc.RunServiceStub(channel).CreateRun(
            run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
        )


async def main(drills: int, orphans: int, interval: float) -> None:
    server = PostgresServer(private=True)
    root = Path(tempfile.mkdtemp(prefix="outrider-bench-adoption-"))
    cluster = Cluster(server.create_database(), root, interval)
    cluster.env["OUTRIDER_MAX_CONCURRENT_RUNS"] = "20"  # every run executes: none waits in line
    tally = Tally()
    try:
        survivors = [cluster.start() for _ in range(2)]
        for survivor in survivors:
            await own_run(survivor)
        print(
            f"{drills} drills, {orphans} orphans each, 2 survivors, interval {interval:g} s, "
            f"load {load()}"
        )
        for _ in range(drills):
            await drill(cluster, survivors, orphans, tally)
        print("                       p50 s  p99 s  min s  max s")
        print(f"all orphans resumed    {figures(tally.all_resumed)}")
        print(f"each orphan resumed    {figures(tally.each_resumed)}")
        print(
            f"runs {tally.runs}, double adoptions {tally.double_adoptions}, "
            f"runs without exactly one complete and one done {tally.not_one_ending}"
        )
        print(f"load after {load()}")
    finally:
        cluster.close()
        server.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drills", type=int, default=50)
    parser.add_argument("--orphans", type=int, default=5)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    asyncio.run(main(args.drills, args.orphans, args.interval))
