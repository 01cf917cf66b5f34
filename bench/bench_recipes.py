"""Recipes: the same multi-step browser task with the model at a simulated latency, and replayed
from its recipe without the model.

The production browser agent (real Chromium, real gRPC on loopback) runs a four-step task on the
tea-shop fixture pages (follow a link, fill a quantity, submit, answer from the basket page). The
model is an OpenAI-compatible server scripted at the wire (tests/models/fake_providers) that
waits --latency seconds before each answer: planning, each action and the validation. One run
records the recipe; then --rounds pairs alternate a model run (recipes off) and a replay run
(recipes on, the recipe found), timed end to end from the client. The replay runs must send the
model nothing: the benchmark counts the requests the fake model server received during them.

Run from the repo root: `.venv/bin/python -m bench.bench_recipes [--rounds 3] [--latency 1]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from outrider.server.settings.browser import BrowserSettings
from outrider.v1 import params_pb2, run_service_pb2
from tests.browser.wire_model import Turn, WireModel, act, plan, verdict, wire_model
from tests.models.fake_providers import Answer
from tests.support.harness import Harness, start_harness, stop_harness
from tests.support.requests import collect
from tests.support.sites import fixture_sites

TASK = "Put 3 x 100 g of Sencha in the basket and tell me the total."


def task_turns() -> list[Turn]:
    return [
        plan(),
        act("click", ref='{{ref: link "Green teas"}}'),
        act("fill", ref='{{ref: spinbutton "Quantity"}}', value="3"),
        act("click", ref='{{ref: button "Add Sencha to basket"}}'),
        act("done", expect=["Total: €12.00"], answer="3 x Sencha, total €12.00."),
        verdict(),
    ]


def slow(model: WireModel, latency: float) -> None:
    """Every answer of the fake model server waits `latency` seconds."""
    respond = model.provider.respond

    def delayed(body: dict[str, Any]) -> Answer:
        return replace(respond(body), delay=latency)

    model.provider.respond = delayed


async def timed_run(harness: Harness, sites: str, mode: int) -> float:
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task=TASK, url=f"{sites}/recipes/start.html", trusted_hostnames=["127.0.0.1"]
        ),
        options=params_pb2.RunOptions(recipes=mode),  # type: ignore[arg-type]
    )
    began = time.perf_counter()
    events = await collect(harness.runs.Automate(request))
    seconds = time.perf_counter() - began
    if not events[-2].automate.complete.success:
        raise RuntimeError(f"a run failed: {events[-2]}")
    return seconds


async def measure(rounds: int, latency: float) -> None:
    with tempfile.TemporaryDirectory() as work, fixture_sites() as sites:
        turns = [turn for _ in range(rounds + 1) for turn in task_turns()]
        with wire_model(turns) as model:
            slow(model, latency)
            harness = await start_harness(
                Path(work),
                production=True,
                model=model.spec,
                network_allow=f"127.0.0.1:{sites.rsplit(':', 1)[1]}",
                browser=BrowserSettings(),
                recipes=True,
            )
            try:
                await report(harness, sites, model, rounds, latency)
            finally:
                await stop_harness(harness)


async def report(
    harness: Harness, sites: str, model: WireModel, rounds: int, latency: float
) -> None:
    recording = await timed_run(harness, sites, params_pb2.RECIPE_MODE_REPLAY)
    print(f"recording run (model, {latency:g} s per call): {recording:.2f} s")
    with_model, replays, replay_calls = [], [], 0
    for number in range(1, rounds + 1):
        with_model.append(await timed_run(harness, sites, params_pb2.RECIPE_MODE_OFF))
        before = len(model.provider.bodies)
        replays.append(await timed_run(harness, sites, params_pb2.RECIPE_MODE_REPLAY))
        replay_calls += len(model.provider.bodies) - before
        print(f"round {number}: model {with_model[-1]:.2f} s, replay {replays[-1]:.2f} s")
    if model.problems:
        raise RuntimeError(f"the scripted model saw unexpected requests: {model.problems}")
    median_model, median_replay = statistics.median(with_model), statistics.median(replays)
    print(f"median: model {median_model:.2f} s, replay {median_replay:.2f} s")
    print(f"replay wall time: 1/{median_model / median_replay:.1f} of the model run's")
    print(f"model calls during the replays: {replay_calls}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call")
    args = parser.parse_args()
    asyncio.run(measure(args.rounds, args.latency))


if __name__ == "__main__":
    main()
