"""What a run has used (Run.usage) and when it began (Run.start_time) and where it waits in line
(Run.queue_position): current on the executing replica, saved in the store at each step (so
another replica's listing is at most a step behind), and kept with the run once it ended. Also
the runs listing's creator and creation-time filters (RunMatch)."""

from __future__ import annotations

from typing import Any

import pytest

from outrider.server.core import clock
from outrider.server.core.principals import SYSTEM
from outrider.server.core.runs.search import RunMatch
from outrider.v1 import run_pb2, run_service_pb2
from tests.conftest import HarnessFactory
from tests.support.harness import Harness, eventually
from tests.support.requests import automate_request


async def _create(harness: Harness, **plan: Any) -> run_pb2.Run:
    request = run_service_pb2.CreateRunRequest(automate=automate_request(**plan).params)
    created: run_service_pb2.CreateRunResponse = await harness.runs.CreateRun(request)
    return created.run


async def _get(harness: Harness, run: run_pb2.Run) -> run_pb2.Run:
    got: run_service_pb2.GetRunResponse = await harness.runs.GetRun(
        run_service_pb2.GetRunRequest(name=run.name)
    )
    return got.run


async def test_usage_is_counted_as_the_run_goes_and_saved_at_each_step(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness()
    run = await _create(harness, steps=3, interval=0.3, usage=[1000, 40, 0.25], hold=True)
    run_id = run.name.removeprefix("runs/")
    store = harness.server.store

    async def two_steps_stored() -> bool:
        stored = store.get_run(run_id)
        return stored is not None and stored.usage.steps >= 2

    await eventually(two_steps_stored, within=30)
    stored = store.get_run(run_id)
    assert stored is not None and stored.HasField("start_time")
    assert stored.usage.input_tokens >= 1000  # the calls of the steps before the newest one
    live = harness.server.runs.get  # read from memory on the executing replica: current
    await eventually(lambda: live(run_id, SYSTEM).usage.input_tokens == 3000, within=30)
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=run.name))
    ended = await _get(harness, run)
    assert (ended.usage.steps, ended.usage.actions) == (3, 0)  # clicks of the script: no browser
    assert (ended.usage.input_tokens, ended.usage.output_tokens) == (3000, 120)
    assert ended.usage.estimated_cost_usd == pytest.approx(0.75)
    assert ended.start_time.ToMicroseconds() >= ended.create_time.ToMicroseconds()
    store.flush()
    assert store.get_run(run_id).usage == ended.usage  # type: ignore[union-attr]


async def test_a_run_without_priced_calls_has_no_cost(make_harness: HarnessFactory) -> None:
    harness = await make_harness()
    run = await _create(harness, steps=2, usage=[10, 1, None])
    await eventually(lambda: harness.server.runs.active_count == 0, within=30)
    ended = await _get(harness, run)
    assert ended.usage.input_tokens == 20 and not ended.usage.HasField("estimated_cost_usd")


async def test_a_queued_run_has_its_place_and_no_start_until_its_turn(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness(max_concurrent_runs=1, max_queued_runs=3)
    held = await _create(harness, hold=True)
    await eventually(
        lambda: harness.server.runs.get(held.name[5:], SYSTEM).state == run_pb2.RUN_STATE_RUNNING,
        within=30,
    )
    first, second = await _create(harness, steps=1), await _create(harness, steps=1)
    waiting = await _get(harness, second)
    assert (waiting.state, waiting.queue_position) == (run_pb2.RUN_STATE_QUEUED, 2)
    assert not waiting.HasField("start_time")
    stored = harness.server.store.get_run(second.name[5:])
    assert stored is not None and stored.queue_position == 2  # other replicas list it so
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=first.name))
    await eventually(lambda: harness.server.runs.get(second.name[5:], SYSTEM).queue_position == 1)
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=held.name))
    await eventually(lambda: harness.server.runs.active_count == 0, within=30)
    done = await _get(harness, second)
    assert done.state == run_pb2.RUN_STATE_SUCCEEDED and done.queue_position == 0
    assert done.start_time.ToMicroseconds() > done.create_time.ToMicroseconds()


async def test_runs_are_listed_by_creator_and_creation_time(make_harness: HarnessFactory) -> None:
    harness = await make_harness()
    before = clock.now_us()
    early = await _create(harness, steps=1)
    middle_us = clock.now_us()
    late = await _create(harness, steps=1)
    await eventually(lambda: harness.server.runs.active_count == 0, within=30)
    runs = harness.server.runs

    def listed(match: RunMatch) -> list[str]:
        found, _ = runs.list(50, "", [], 0, SYSTEM, match=match)
        return [run.name for run in found]

    assert listed(RunMatch(created_since_us=middle_us)) == [late.name]
    assert listed(RunMatch(created_until_us=middle_us, created_since_us=before)) == [early.name]
    assert listed(RunMatch(created_by=early.created_by, created_since_us=before)) == [
        late.name,
        early.name,
    ]
    assert listed(RunMatch(created_by="somebody-else")) == []
