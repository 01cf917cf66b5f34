"""An answer retried across the loss of the replica that took it: what the retry is told.

Two test-server processes (ScriptAgent, no model) survive on one private PostgreSQL cluster. In
each round a fresh replica A starts `--runs` runs that ask for a form value; the answers go to A,
A is SIGKILLed 0-50 ms later (uniformly), and each identical answer is sent again through
survivor B, as a client unsure whether it was taken does (again while B says UNAVAILABLE:
EXECUTOR_LOST, nobody took the run over yet; RELAY_FAILED, the relay to the killed A failed).
The outcomes are counted: `accepted` (a repeat of an answer that was taken),
`INTERACTION_ASKED_AGAIN` (the run resumed and asks again under the id it names),
`INTERACTION_ALREADY_RESOLVED` (false here: the answer is the same), others. Then
the client answers what the runs ask until they end; every run must succeed.

Run from the repo root:
`.venv/bin/python -m bench.bench_answer_retry [--rounds 50] [--runs 1] [--interval 1]`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.bench_failover import Cluster, figures, load
from outrider.v1 import run_pb2, run_service_pb2
from tests.store.test_answers_across_replicas import answer_of, retried, started
from tests.store.test_cluster_drill import Node, pending_of, settle
from tests.support.postgres import PostgresServer


async def one_round(cluster: Cluster, survivors: list[Node], runs: int) -> list[tuple[str, float]]:
    """The outcome of each retried answer of one round, with how long the retry took."""
    victim = Node(cluster.start())
    nodes = [victim, *survivors]
    try:
        names = [await started(nodes, steps=1, ask_input=True) for _ in range(runs)]
        questions = [await pending_of(survivors[0], name) for name in names]
        sent = [
            asyncio.ensure_future(victim.interactions.SubmitInput(answer_of(q.name)))
            for q in questions
        ]
        await asyncio.sleep(random.uniform(0.0, 0.05))
        victim.process.kill()
        victim.alive = False
        await asyncio.gather(*sent, return_exceptions=True)
        began = time.monotonic()
        outcomes = await asyncio.gather(*(retried(nodes, q) for q in questions))
        took = time.monotonic() - began
        for name in names:
            await settle(nodes, 1, name)
            run = (await survivors[0].runs.GetRun(run_service_pb2.GetRunRequest(name=name))).run
            if run.state != run_pb2.RUN_STATE_SUCCEEDED:
                outcomes.append(f"run ended {run_pb2.RunState.Name(run.state)}")
        return [(outcome, took) for outcome in outcomes]
    finally:
        await victim.channel.close()


async def main(rounds: int, runs: int, interval: float) -> None:
    server = PostgresServer(private=True)
    root = Path(tempfile.mkdtemp(prefix="outrider-bench-answers-"))
    cluster = Cluster(server.create_database(), root, interval)  # with a cluster secret
    try:
        survivors = [Node(cluster.start()) for _ in range(2)]
        print(f"{rounds} rounds, {runs} runs each, interval {interval:g} s, load {load()}")
        told: list[tuple[str, float]] = []
        for _ in range(rounds):
            told += await one_round(cluster, survivors, runs)
        for outcome, count in Counter(outcome for outcome, _ in told).most_common():
            print(f"{outcome:32} {count:4}")
        print(f"retry answered after (s)  p50 p99 min max: {figures([t for _, t in told])}")
        print(f"load after {load()}")
        for node in survivors:
            await node.channel.close()
    finally:
        cluster.close()
        server.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.runs, args.interval))
