"""What a start costs: CreateRun round trips on SQLite and PostgreSQL, without a request id, with
a new one, and with one already used (a replay), and a burst of concurrent starts.

Each side is a test-server process (ScriptAgent, runs of zero steps); PostgreSQL is a private
cluster of its own. `--before COMMIT` also measures that commit's server (its tree taken with
`git archive`, its modules first on PYTHONPATH), alternating with this checkout round by round,
so both see the same machine state. A start is answered once its run's row is committed on
both: before issue 23 by the write-behind queue and the edge's commit barrier, since by a
transaction of its own.

Run from the repo root: `.venv/bin/python -m bench.bench_starts [--rounds N] [--before COMMIT]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import grpc

from bench.browser_task_tokens import tree_of
from outrider.v1 import run_service_pb2, run_service_pb2_grpc
from tests.support.harness import REPO_ROOT, ServerProcess
from tests.support.postgres import PostgresServer
from tests.support.requests import automate_request

BURST = 32


def request(request_id: str = "") -> run_service_pb2.CreateRunRequest:
    params = automate_request(steps=0).params
    return run_service_pb2.CreateRunRequest(automate=params, request_id=request_id)


async def timed(
    stub: run_service_pb2_grpc.RunServiceStub, sent: run_service_pb2.CreateRunRequest
) -> float:
    began = time.perf_counter()
    await stub.CreateRun(sent)
    return (time.perf_counter() - began) * 1000


async def one_round(stub: run_service_pb2_grpc.RunServiceStub, keyed: bool) -> dict[str, float]:
    """One start of each kind, and a burst (ms until every start of it was answered)."""
    found = {"no request id": await timed(stub, request())}
    if keyed:
        key = str(uuid.uuid4())
        found["new request id"] = await timed(stub, request(key))
        found["replay"] = await timed(stub, request(key))
    began = time.perf_counter()
    await asyncio.gather(*(stub.CreateRun(request()) for _ in range(BURST)))
    found[f"burst of {BURST}"] = (time.perf_counter() - began) * 1000
    return found


async def measure(ports: dict[str, int], rounds: int) -> dict[str, dict[str, list[float]]]:
    channels = {
        name: grpc.aio.insecure_channel(f"127.0.0.1:{port}") for name, port in ports.items()
    }
    stubs = {name: run_service_pb2_grpc.RunServiceStub(c) for name, c in channels.items()}
    results: dict[str, dict[str, list[float]]] = {name: {} for name in ports}
    for name, stub in stubs.items():  # warm up channels and pools
        await one_round(stub, name == "this checkout")
    for _ in range(rounds):
        for name, stub in stubs.items():
            for what, ms in (await one_round(stub, name == "this checkout")).items():
                results[name].setdefault(what, []).append(ms)
    for channel in channels.values():
        await channel.close()
    return results


def serve(root: Path, scratch: Path, env: dict[str, str]) -> ServerProcess:
    if root != REPO_ROOT:
        env = env | {"PYTHONPATH": f"{root / 'server'}:{root / 'client'}"}
    server = ServerProcess(scratch, OUTRIDER_LOG_LEVEL="warning", **env)
    server.start()
    server.drain()
    return server


def report(backend: str, results: dict[str, dict[str, list[float]]]) -> None:
    for name, kinds in results.items():
        for what, values in kinds.items():
            q = statistics.quantiles(values, n=100, method="inclusive")
            print(f"{backend:<11} {name:<16} {what:<15} {q[49]:>8.2f} {q[98]:>8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--before", nargs="*", default=[])
    args = parser.parse_args()
    print(f"{args.rounds} rounds, ms: {'backend':<11} {'side':<16} {'start':<15} p50 p99")
    postgres = PostgresServer()
    with tempfile.TemporaryDirectory(prefix="bench-starts-") as temp:
        roots = {commit: tree_of(commit, Path(temp) / commit) for commit in args.before}
        roots["this checkout"] = REPO_ROOT
        for backend in ("SQLite", "PostgreSQL"):
            servers: dict[str, ServerProcess] = {}
            try:
                for name, root in roots.items():
                    env = {"OUTRIDER_MAX_QUEUED_RUNS": "1000"}  # bursts are never refused
                    if backend == "PostgreSQL":
                        env["OUTRIDER_DATABASE_URL"] = postgres.create_database()
                    scratch = Path(temp) / f"{backend}-{name.replace(' ', '-')}"
                    servers[name] = serve(root, scratch, env)
                ports = {name: server.port for name, server in servers.items()}
                report(backend, asyncio.run(measure(ports, args.rounds)))
            finally:
                for server in servers.values():
                    server.close()
    postgres.close()


if __name__ == "__main__":
    main()
