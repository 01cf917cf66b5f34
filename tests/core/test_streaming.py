"""Event log semantics over real gRPC streams: gapless sequences, watchers, resume, slowness."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest

from outrider.v1 import run_pb2, run_service_pb2
from tests.conftest import HarnessFactory
from tests.support.harness import Harness
from tests.support.requests import automate_request, collect, read_rest


async def create(harness: Harness, **plan: object) -> str:
    request = automate_request(**plan)
    response = await harness.runs.CreateRun(
        run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
    )
    return response.run.name


def watch(harness: Harness, name: str, after: int = 0) -> grpc.aio.UnaryStreamCall:
    return harness.runs.StreamRunEvents(
        run_service_pb2.StreamRunEventsRequest(name=name, after_sequence=after)
    )


async def test_twenty_concurrent_watchers_each_see_one_gapless_sequence(harness: Harness) -> None:
    name = await create(harness, steps=100, interval=0.002)
    results = await asyncio.gather(*(collect(watch(harness, name)) for _ in range(20)))
    expected = list(range(1, 100 * 2 + 5))  # setup, 100 x (step, action), completed, complete, done
    for events in results:
        assert [e.sequence for e in events] == expected
        assert all(e.run == name for e in events)
    run = (await harness.runs.GetRun(run_service_pb2.GetRunRequest(name=name))).run
    assert run.last_sequence == expected[-1]
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
async def test_watcher_resuming_after_a_random_drop_gets_every_event_exactly_once(
    harness: Harness, seed: int
) -> None:
    name = await create(harness, steps=60, interval=0.003)
    drop_after = random.Random(seed).randint(1, 120)
    first = watch(harness, name)
    received = []
    async for response in first:
        if response.HasField("event"):
            received.append(response.event.sequence)
            if len(received) == drop_after:
                break
    first.cancel()
    resumed = await collect(watch(harness, name, after=received[-1]))
    sequences = received + [e.sequence for e in resumed]
    assert sequences == list(range(1, 60 * 2 + 5))


async def test_slow_watcher_delays_neither_the_run_nor_other_watchers(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness(watcher_buffer=16)
    name = await create(harness, steps=1500, task="x" * 200)
    slow = watch(harness, name)
    first = await slow.read()  # the slow watcher reads one event, then stops reading
    assert first.event.sequence == 1
    fast = await asyncio.gather(*(collect(watch(harness, name)) for _ in range(3)))
    run = (await harness.runs.GetRun(run_service_pb2.GetRunRequest(name=name))).run
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED  # the run ended while the slow one stalled
    total = run.last_sequence
    for events in fast:
        assert [e.sequence for e in events] == list(range(1, total + 1))
    rest = [e.sequence for e in await read_rest(slow)]
    assert [1, *rest] == list(range(1, total + 1))  # and it still gets everything, once


async def test_stream_of_a_finished_run_replays_and_ends(harness: Harness) -> None:
    first = await collect(harness.runs.Automate(automate_request(steps=2)))
    name = first[0].run
    assert await collect(watch(harness, name)) == first
    assert await collect(watch(harness, name, after=len(first))) == []
    assert [e.sequence for e in await collect(watch(harness, name, after=3))] == list(
        range(4, len(first) + 1)
    )


async def test_cursor_beyond_the_newest_event_is_out_of_range(harness: Harness) -> None:
    events = await collect(harness.runs.Automate(automate_request(steps=1)))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await collect(watch(harness, events[0].run, after=len(events) + 1))
    assert caught.value.code() == grpc.StatusCode.OUT_OF_RANGE


async def test_heartbeats_flow_while_a_run_is_quiet(make_harness: HarnessFactory) -> None:
    harness = await make_harness(heartbeat_interval=0.05)
    call = harness.runs.Automate(automate_request(steps=1, hold=True))
    kinds = []
    async for response in call:
        kinds.append(response.WhichOneof("kind"))
        if kinds.count("heartbeat") == 2:
            break
    call.cancel()
    assert kinds[0] == "event" and kinds[-1] == "heartbeat"
