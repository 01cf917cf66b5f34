"""Answers and cancels given on a replica that does not execute the run (relayed), against the
same calls on the executing replica itself.

Starts two test-server processes (ScriptAgent, no model) on one private PostgreSQL cluster with
a shared OUTRIDER_CLUSTER_SECRET. Each round starts a run on A that asks for form data, waits
until the question is pending, then answers it on B (relayed) or on A (local), alternating.
"call" is the SubmitInput round trip (it returns once the executor has handed the answer to the
waiting agent); "agent" is from the call to the time stamped on the agent's next event (its
report that it received the answer; one machine, one clock). Cancels: a holding run cancelled
on B or A; CancelRun returns once the run's terminal events are written.

Run from the repo root: `.venv/bin/python -m bench.bench_relay [rounds]`.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import grpc

from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import (
    interaction_service_pb2_grpc,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
)
from tests.support.harness import ServerProcess
from tests.support.postgres import PostgresServer
from tests.support.requests import automate_request

SECRET = "bench-relay-secret-" + "b" * 24


class Stubs:
    def __init__(self, port: int) -> None:
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        self.runs = run_service_pb2_grpc.RunServiceStub(self.channel)
        self.interactions = interaction_service_pb2_grpc.InteractionServiceStub(self.channel)


async def start(a: Stubs, **plan: object) -> str:
    request = automate_request(steps=0, **plan)
    created = await a.runs.CreateRun(
        run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
    )
    return created.run.name


async def pending(stubs: Stubs, run: str) -> ip.Interaction:
    while True:
        listed = await stubs.interactions.ListInteractions(isv.ListInteractionsRequest(run=run))
        if listed.interactions:
            return listed.interactions[0]
        await asyncio.sleep(0.005)


async def answer_round(a: Stubs, via: Stubs) -> tuple[float, float]:
    """(call ms, agent ms) of one answer given on `via` for a run executed by A."""
    run = await start(a, ask_input=True)
    question = await pending(via, run)
    events = a.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=run))
    request = isv.SubmitInputRequest(
        name=question.name, fields=[ip.FieldValue(ref="E1", value="me@example.com")]
    )
    asked = time.time() * 1000
    began = time.perf_counter()
    await via.interactions.SubmitInput(request)
    call = (time.perf_counter() - began) * 1000
    agent = 0.0
    async for response in events:
        status = response.event.automate.agent_status.message
        if status.startswith("input submitted"):
            agent = response.event.time.ToMilliseconds() - asked
            events.cancel()
            break
    return call, agent


async def cancel_round(a: Stubs, via: Stubs) -> float:
    run = await start(a, hold=True)
    await running(a, run)
    began = time.perf_counter()
    await via.runs.CancelRun(run_service_pb2.CancelRunRequest(name=run))
    return (time.perf_counter() - began) * 1000


async def running(a: Stubs, run: str) -> None:
    """Returns once the run is RUNNING (the agent holds)."""
    request = run_service_pb2.GetRunRequest(name=run)
    for _ in range(2000):
        if (await a.runs.GetRun(request)).run.state == run_pb2.RUN_STATE_RUNNING:
            return
        await asyncio.sleep(0.005)
    raise RuntimeError(f"{run} never ran")


def cut(values: list[float]) -> str:
    q = statistics.quantiles(values, n=100, method="inclusive")
    return f"{q[49]:>8.2f} {q[98]:>8.2f} {max(values):>8.2f}"


async def measure(ports: list[int], rounds: int) -> None:
    a, b = Stubs(ports[0]), Stubs(ports[1])
    for _ in range(5):  # warm up channels, pools and the relay's channel to A
        await answer_round(a, b)
        await answer_round(a, a)
    results: dict[str, list[tuple[float, float]]] = {"relayed (on B)": [], "local (on A)": []}
    cancels: dict[str, list[float]] = {"relayed (on B)": [], "local (on A)": []}
    for _ in range(rounds):  # alternate, so load changes hit both sides alike
        results["relayed (on B)"].append(await answer_round(a, b))
        results["local (on A)"].append(await answer_round(a, a))
        cancels["relayed (on B)"].append(await cancel_round(a, b))
        cancels["local (on A)"].append(await cancel_round(a, a))
    head = f"{'call p50':>8} {'p99':>8} {'max':>8}"
    print(f"{'answer':<16} {head} | {'agent p50':>8} {'p99':>8} {'max':>8}")
    for label, pairs in results.items():
        calls, agents = [p[0] for p in pairs], [p[1] for p in pairs]
        print(f"{label:<16} {cut(calls)} | {cut(agents)}")
    print(f"{'cancel':<16} {head}")
    for label, values in cancels.items():
        print(f"{label:<16} {cut(values)}")
    await a.channel.close()
    await b.channel.close()


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    print(f"{rounds} rounds per side, ms")
    postgres = PostgresServer()
    with tempfile.TemporaryDirectory() as scratch:
        url = postgres.create_database()
        env = {"OUTRIDER_DATABASE_URL": url, "OUTRIDER_CLUSTER_SECRET": SECRET}
        env |= {"OUTRIDER_LOG_LEVEL": "warning"}
        replicas = [ServerProcess(Path(scratch) / name, **env) for name in "ab"]
        try:
            for replica in replicas:
                replica.start()
                replica.drain()
            asyncio.run(measure([r.port for r in replicas], rounds))
        finally:
            for replica in replicas:
                replica.close()
            postgres.close()


if __name__ == "__main__":
    main()
