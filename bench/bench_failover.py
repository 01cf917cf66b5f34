"""How long a run waits after the loss of its replica until it goes on elsewhere: from the loss
to its first resumed event (`run_resumed`) and to its agent's first event after it
(`task:setup`), as a watcher on another replica receives them.

Two test-server processes (ScriptAgent, no model) survive on one private PostgreSQL cluster; in
each round a fresh replica A starts a holding run, watched on survivor B, and is lost:
- kill: A is SIGKILLed (PostgreSQL releases its presence lock at once);
- partition: A is frozen (SIGSTOP, so it cannot take its presence back) and its presence session
  is ended with pg_terminate_backend, as PostgreSQL does once TCP keepalive gives up on a
  replica whose network is gone. That detection itself (about 6 s: idle 3 s, then 3 probes 1 s
  apart) comes before what is measured here; this machine has no packet filter to cut a
  connection for real.
Survivors sweep every `--interval` seconds (default 4, the production default) and claim a run
found nobody's at two sweeps in a row.

Run from the repo root: `.venv/bin/python -m bench.bench_failover [--kills 10] [--interval 4]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import psycopg

from outrider.server.core.storage.postgres.presence import NAMESPACE
from outrider.v1 import run_service_pb2, run_service_pb2_grpc
from tests.support.harness import ServerProcess
from tests.support.postgres import PostgresServer
from tests.support.requests import automate_request, names

SECRET = "bench-failover-secret-" + "f" * 20


class Cluster:
    def __init__(self, url: str, root: Path, interval: float) -> None:
        self.url, self.root = url, root
        self.env = {
            "OUTRIDER_DATABASE_URL": url,
            "OUTRIDER_FAILOVER_INTERVAL": str(interval),
            "OUTRIDER_CLUSTER_SECRET": SECRET,
            "OUTRIDER_LOG_LEVEL": "WARNING",
        }
        self.started: list[ServerProcess] = []

    def start(self) -> ServerProcess:
        replica = ServerProcess(self.root / f"r{len(self.started)}", **self.env)
        self.started.append(replica)
        replica.start(timeout=60)
        replica.drain()
        return replica

    def close(self) -> None:
        for replica in self.started:
            replica.close()


async def one_loss(cluster: Cluster, watcher_port: int, mode: str) -> tuple[float, float]:
    """(seconds to run_resumed, seconds to the agent's first event after it) for one run."""
    victim = cluster.start()
    async with (
        grpc.aio.insecure_channel(f"127.0.0.1:{victim.port}") as on_a,
        grpc.aio.insecure_channel(f"127.0.0.1:{watcher_port}") as on_b,
    ):
        request = automate_request(steps=1, hold=True)
        created = await run_service_pb2_grpc.RunServiceStub(on_a).CreateRun(
            run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
        )
        stream = run_service_pb2_grpc.RunServiceStub(on_b).StreamRunEvents(
            run_service_pb2.StreamRunEventsRequest(name=created.run.name)
        )
        await until(stream, "agent:action")  # it runs on A
        lost = lose(cluster, victim, mode)
        await until(stream, "run_resumed")
        resumed = time.monotonic() - lost
        await until(stream, "task:setup")
        first = time.monotonic() - lost
        await run_service_pb2_grpc.RunServiceStub(on_b).CancelRun(
            run_service_pb2.CancelRunRequest(name=created.run.name)
        )
    victim.kill()  # a frozen one too
    return resumed, first


def lose(cluster: Cluster, victim: ServerProcess, mode: str) -> float:
    """Loses A as `mode` says; returns the monotonic time of the loss."""
    assert victim.process is not None
    if mode == "kill":
        lost = time.monotonic()
        victim.kill()
        return lost
    os.kill(victim.process.pid, signal.SIGSTOP)
    backend = presence_backend(cluster.url, victim.port)
    lost = time.monotonic()
    with psycopg.connect(cluster.url, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s, 5000)", (backend,))
    return lost


def presence_backend(url: str, port: int) -> int:
    """The backend pid holding the presence lock of the replica listening on `port`."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT l.pid FROM replicas p JOIN pg_locks l ON l.locktype = 'advisory' "
            "AND l.granted AND l.objsubid = 2 AND l.classid::bigint = %s "
            "AND l.objid::bigint = p.owner WHERE p.address LIKE %s",
            (NAMESPACE, f"%:{port}"),
        ).fetchone()
    assert row is not None, "the replica holds no presence lock"
    return int(row[0])


async def until(
    stream: AsyncIterator[run_service_pb2.StreamRunEventsResponse], wanted: str
) -> None:
    async for response in stream:
        if response.HasField("event") and names([response.event]) == [wanted]:
            return
    raise RuntimeError(f"the stream ended before {wanted}")


def figures(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"{statistics.median(ordered):6.2f} {p99:6.2f} {ordered[0]:6.2f} {ordered[-1]:6.2f}"


async def main(kills: int, interval: float, modes: list[str]) -> None:
    server = PostgresServer(private=True)
    root = Path(tempfile.mkdtemp(prefix="outrider-bench-failover-"))
    cluster = Cluster(server.create_database(), root, interval)
    try:
        survivors = [cluster.start() for _ in range(2)]
        print(f"failover interval {interval:g} s, {kills} losses per mode, load {load()}")
        print("mode       event          p50 s  p99 s  min s  max s")
        for mode in modes:
            rounds = [await one_loss(cluster, survivors[0].port, mode) for _ in range(kills)]
            print(f"{mode:10} run_resumed   {figures([r[0] for r in rounds])}")
            print(f"{mode:10} task:setup    {figures([r[1] for r in rounds])}")
        print(f"load after {load()}")
    finally:
        cluster.close()
        server.close()


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--interval", type=float, default=4.0)
    parser.add_argument("--modes", default="kill,partition")
    args = parser.parse_args()
    asyncio.run(main(args.kills, args.interval, args.modes.split(",")))
