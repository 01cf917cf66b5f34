"""How long watchers wait when PostgreSQL fails over: from the moment the promoted standby accepts
writes to the first event a watcher receives after it, over several promotions.

A private primary with a streaming standby (`pg_basebackup -R`, synchronous unless `--async`)
and two test-server replicas (ScriptAgent: no model, no browser) given both nodes in a
multi-host URL with `target_session_attrs=read-write`. Each round starts a run on replica A that
emits two events every 20 ms, watched on A (the executor's own watcher) and on B (events reach it
through the database: B's LISTEN connection, then B's read). The primary is stopped as a crash
stops it (`pg_ctl stop -m immediate`), the standby promoted `--decide` seconds later (what a
failover manager takes to judge; 0 by default, so only Outrider's part is measured), and the
moment it accepts writes is found by polling it every 5 ms. Then the old primary is rebuilt as
the new standby (a fresh base backup) for the next round.

Printed per watcher: promote -> first event after it, and crash -> that event (the whole stall
a client sees), p50/p99/min/max over the rounds; every watcher's sequence is checked gapless.

Run from the repo root: `.venv/bin/python -m bench.bench_promote [--rounds 10] [--decide 0]`.
"""

from __future__ import annotations

import os

# Before grpc is imported: this process forks pg_ctl while its channels run (see tests/conftest.py)
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from outrider.v1 import run_service_pb2, run_service_pb2_grpc
from tests.support.harness import ServerProcess, eventually
from tests.support.pg_replicated import ReplicatedPostgres
from tests.support.requests import automate_request

SECRET = "bench-promote-secret-" + "p" * 20


@dataclass
class Watcher:
    """Arrival times (monotonic) of a run's events on one replica's stream."""

    stub: run_service_pb2_grpc.RunServiceStub
    run: str
    arrivals: list[tuple[float, int]] = field(default_factory=list)

    async def follow(self) -> None:
        request = run_service_pb2.StreamRunEventsRequest(name=self.run)
        async for response in self.stub.StreamRunEvents(request):
            if response.HasField("event"):
                self.arrivals.append((time.monotonic(), response.event.sequence))

    def first_after(self, moment: float) -> float:
        return next(at for at, _ in self.arrivals if at >= moment)

    def gapless(self) -> bool:
        sequences = [sequence for _, sequence in self.arrivals]
        return sequences == list(range(1, len(sequences) + 1))


@dataclass
class Round:
    stall: dict[str, float]  # watcher -> crash to its first event after the promotion
    after_promote: dict[str, float]  # watcher -> promotion to that event
    gapless: bool


Stubs = dict[str, run_service_pb2_grpc.RunServiceStub]


async def one_round(cluster: ReplicatedPostgres, stubs: Stubs, decide: float) -> Round:
    request = automate_request(steps=100_000, interval=0.02)
    created = await stubs["A"].CreateRun(
        run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
    )
    watchers = {where: Watcher(stub, created.run.name) for where, stub in stubs.items()}
    tasks = [asyncio.create_task(w.follow()) for w in watchers.values()]
    await eventually(lambda: min(len(w.arrivals) for w in watchers.values()) >= 20, 60)
    crashed, promoted = await asyncio.to_thread(fail_over, cluster, decide)
    await eventually(lambda: all(w.arrivals[-1][0] >= promoted for w in watchers.values()), 120)
    await stubs["A"].CancelRun(run_service_pb2.CancelRunRequest(name=created.run.name))
    await asyncio.wait_for(asyncio.gather(*tasks), 60)
    return Round(
        {where: w.first_after(promoted) - crashed for where, w in watchers.items()},
        {where: w.first_after(promoted) - promoted for where, w in watchers.items()},
        all(w.gapless() for w in watchers.values()),
    )


def fail_over(cluster: ReplicatedPostgres, decide: float) -> tuple[float, float]:
    """Crashes the primary, promotes the standby; (monotonic time of the crash, of the moment
    the new primary accepted writes)."""
    crashed = time.monotonic()
    cluster.stop_primary()
    time.sleep(decide)
    cluster.promote(wait=False)
    while not cluster.accepts_writes():
        time.sleep(0.005)
    return crashed, time.monotonic()


def figures(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered):7.3f} {p99:7.3f} {ordered[0]:7.3f} {ordered[-1]:7.3f}"


def start_replicas(url: str, root: Path) -> list[ServerProcess]:
    env = {
        "OUTRIDER_DATABASE_URL": url,
        "OUTRIDER_CLUSTER_SECRET": SECRET,
        "OUTRIDER_LOG_LEVEL": "WARNING",
    }
    replicas = [ServerProcess(root / name, **env) for name in ("a", "b")]
    for replica in replicas:
        replica.start(timeout=60)
        replica.drain()
    return replicas


async def main(rounds: int, decide: float, synchronous: bool) -> None:
    cluster = ReplicatedPostgres(synchronous=synchronous)
    replicas = start_replicas(cluster.create_database(), Path(tempfile.mkdtemp(prefix="promote-")))
    channels = {
        where: grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}")
        for where, replica in zip("AB", replicas, strict=True)
    }
    stubs = {where: run_service_pb2_grpc.RunServiceStub(c) for where, c in channels.items()}
    try:
        replication = "synchronous" if synchronous else "asynchronous"
        print(f"{rounds} promotions, {replication} standby, decide {decide:g} s, load {load()}")
        done = []
        for _ in range(rounds):
            cluster.ready(synchronous)
            done.append(await one_round(cluster, stubs, decide))
        print("watcher               measure                  p50 s   p99 s   min s   max s")
        for where, label in (("A", "on the executor (A)"), ("B", "on another replica (B)")):
            after = [r.after_promote[where] for r in done]
            stall = [r.stall[where] for r in done]
            print(f"{label:22} promote -> first event  {figures(after)}")
            print(f"{'':22} crash -> first event    {figures(stall)}")
        print(f"every watcher gapless: {all(r.gapless for r in done)}; load after {load()}")
    finally:
        for channel in channels.values():
            await channel.close()
        for replica in replicas:
            replica.close()
        cluster.close()


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--decide", type=float, default=0.0)
    parser.add_argument("--async", dest="asynchronous", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.decide, not args.asynchronous))
