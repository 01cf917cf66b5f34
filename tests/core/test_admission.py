"""Admission control: runs beyond the execution slots wait in line, told their place, and start in
arrival order; past the line new runs are refused; a cancelled waiting run leaves the line."""

from __future__ import annotations

import grpc
import pytest

from outrider.v1 import run_pb2, run_service_pb2
from tests.conftest import HarnessFactory
from tests.support.harness import Harness, eventually, rich_error
from tests.support.requests import automate_request, collect, names


async def _create(harness: Harness, **plan: object) -> run_pb2.Run:
    request = run_service_pb2.CreateRunRequest(automate=automate_request(**plan).params)
    return (await harness.runs.CreateRun(request)).run


async def _state(harness: Harness, run: run_pb2.Run) -> int:
    return (await harness.runs.GetRun(run_service_pb2.GetRunRequest(name=run.name))).run.state


async def _until(harness: Harness, run: run_pb2.Run, state: int) -> None:
    async def reached() -> bool:
        return await _state(harness, run) == state

    await eventually(reached, within=30)


async def _events(harness: Harness, run: run_pb2.Run) -> list[str]:
    stream = harness.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=run.name))
    return names(await collect(stream))


async def test_runs_beyond_the_slots_wait_in_line_and_all_finish(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness(max_concurrent_runs=1, max_queued_runs=2, busy_retry_after=3)
    held = await _create(harness, hold=True)
    await _until(harness, held, run_pb2.RUN_STATE_RUNNING)
    second, third = await _create(harness, steps=1), await _create(harness, steps=1)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _create(harness, steps=1)
    error = rich_error(caught.value)
    assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED and error.retry_delay == 3
    assert await _state(harness, second) == run_pb2.RUN_STATE_QUEUED
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=held.name))
    second_events, third_events = await _events(harness, second), await _events(harness, third)
    assert second_events[:2] == ["run_queued", "task:setup"], second_events
    assert third_events[:3] == ["run_queued", "run_queued", "task:setup"], third_events
    assert second_events[-2:] == third_events[-2:] == ["complete", "done"]
    for run in (second, third):
        assert await _state(harness, run) == run_pb2.RUN_STATE_SUCCEEDED


async def test_places_count_down_and_a_cancelled_waiting_run_leaves_the_line(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness(max_concurrent_runs=1, max_queued_runs=3)
    held = await _create(harness, hold=True)
    await _until(harness, held, run_pb2.RUN_STATE_RUNNING)
    first, second, third = [await _create(harness, steps=1) for _ in range(3)]
    cancelled = await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=first.name))
    assert cancelled.run.state == run_pb2.RUN_STATE_CANCELLED
    first_events = await _events(harness, first)
    assert first_events == ["run_queued", "complete", "done"], first_events
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=held.name))
    stream = harness.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=third.name))
    third_events = await collect(stream)
    places = [e.run_queued.position for e in third_events if e.HasField("run_queued")]
    assert places == [3, 2, 1], places  # after the cancel, then after the held run ended
    assert names(third_events)[-2:] == ["complete", "done"]
    assert await _state(harness, second) == run_pb2.RUN_STATE_SUCCEEDED


@pytest.mark.parametrize(
    ("setting", "reason"),
    [("cluster_max_active_runs", "CLUSTER_BUSY"), ("tenant_max_active_runs", "TENANT_BUSY")],
)
async def test_store_wide_limits_refuse_runs_beyond_them(
    make_harness: HarnessFactory, setting: str, reason: str
) -> None:
    harness = await make_harness(**{setting: 2, "max_concurrent_runs": 4})
    held = [await _create(harness, hold=True) for _ in range(2)]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await _create(harness, steps=1)
    error = rich_error(caught.value)
    assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, reason)
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=held[0].name))
    admitted = await _create(harness, steps=1)  # room again once a run ended
    assert (await _events(harness, admitted))[-1] == "done"
