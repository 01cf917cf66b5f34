"""Server processes on one PostgreSQL: a run started on A is watched live on B, gapless and
without duplicates, and a watcher on B resumes from any sequence, exactly as on A. A replica
starting leaves the runs of live replicas alone, and closes those of a killed one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import grpc
import pytest

from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import interaction_service_pb2_grpc, run_pb2, run_service_pb2, run_service_pb2_grpc
from tests.support.harness import ServerProcess, eventually
from tests.support.requests import automate_request, collect, names, read_rest

STEPS = 25  # each step is two events, a few milliseconds apart: the run is live while B watches


@pytest.fixture
def replicas(start_replica: Callable[..., ServerProcess]) -> list[ServerProcess]:
    return [start_replica(), start_replica()]


@pytest.fixture
async def stubs(
    replicas: list[ServerProcess],
) -> AsyncIterator[list[run_service_pb2_grpc.RunServiceStub]]:
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{r.port}") for r in replicas]
    yield [run_service_pb2_grpc.RunServiceStub(channel) for channel in channels]
    for channel in channels:
        await channel.close()


def watch(
    stub: run_service_pb2_grpc.RunServiceStub, name: str, after: int = 0
) -> AsyncIterator[run_service_pb2.StreamRunEventsResponse]:
    return stub.StreamRunEvents(
        run_service_pb2.StreamRunEventsRequest(name=name, after_sequence=after)
    )


async def test_a_run_started_on_a_is_watched_live_on_b(
    stubs: list[run_service_pb2_grpc.RunServiceStub],
) -> None:
    a, b = stubs
    started = a.Automate(automate_request(steps=STEPS, interval=0.02))
    first = await started.read()
    name = first.event.run
    on_b = asyncio.create_task(collect(watch(b, name)))
    on_a = [first.event]
    while on_a[-1].sequence < 10:  # then resume on B from a cursor A's watcher already passed
        response = await started.read()
        if response.HasField("event"):
            on_a.append(response.event)
    resumed_on_b = asyncio.create_task(collect(watch(b, name, after=5)))
    on_a += await read_rest(started)
    seen_on_b = await on_b
    assert [e.sequence for e in on_a] == list(range(1, len(on_a) + 1))
    assert names(on_a)[-1] == "done"
    assert [e.SerializeToString() for e in seen_on_b] == [e.SerializeToString() for e in on_a]
    assert [e.sequence for e in await resumed_on_b] == list(range(6, len(on_a) + 1))
    run = (await b.GetRun(run_service_pb2.GetRunRequest(name=name))).run
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED and run.last_sequence == len(on_a)


async def test_b_sees_a_running_run_and_its_progress_and_refuses_to_end_it(
    stubs: list[run_service_pb2_grpc.RunServiceStub],
) -> None:
    a, b = stubs
    started = a.Automate(automate_request(steps=1, hold=True))
    name = (await started.read()).event.run
    live = watch(b, name)
    while True:  # B's stream delivers A's events while the run holds
        response = await live.read()  # type: ignore[attr-defined]
        if (
            response.HasField("event")
            and response.event.HasField("automate")
            and response.event.automate.HasField("agent_action")
        ):
            break
    run = (await b.GetRun(run_service_pb2.GetRunRequest(name=name))).run
    assert run.state == run_pb2.RUN_STATE_RUNNING and run.last_sequence >= response.event.sequence
    refusals = (
        (b.CancelRun(run_service_pb2.CancelRunRequest(name=name)), grpc.StatusCode.UNIMPLEMENTED),
        (
            b.DeleteRun(run_service_pb2.DeleteRunRequest(name=name)),
            grpc.StatusCode.FAILED_PRECONDITION,
        ),
    )
    for call, code in refusals:  # B must neither pretend to cancel nor delete a running run
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await call
        assert refused.value.code() == code
    await a.CancelRun(run_service_pb2.CancelRunRequest(name=name))
    rest = await read_rest(live)
    assert names(rest)[-2:] == ["complete", "done"]
    started.cancel()


async def get_run(target: int, name: str) -> run_pb2.Run:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{target}") as channel:
        stub = run_service_pb2_grpc.RunServiceStub(channel)
        return (await stub.GetRun(run_service_pb2.GetRunRequest(name=name))).run


async def test_a_starting_replica_leaves_runs_of_live_replicas_alone(
    replicas: list[ServerProcess],
    stubs: list[run_service_pb2_grpc.RunServiceStub],
    start_replica: Callable[..., ServerProcess],
) -> None:
    a, _ = stubs
    started = a.Automate(automate_request(steps=1, ask_input=True))
    name = (await started.read()).event.run

    async def waits_for_input() -> bool:
        return (await get_run(replicas[0].port, name)).state == run_pb2.RUN_STATE_INPUT_REQUIRED

    await eventually(waits_for_input)
    third = start_replica()
    assert (await get_run(third.port, name)).state == run_pb2.RUN_STATE_INPUT_REQUIRED
    async with grpc.aio.insecure_channel(f"127.0.0.1:{third.port}") as channel:
        on_third = interaction_service_pb2_grpc.InteractionServiceStub(channel)
        listed = await on_third.ListInteractions(isv.ListInteractionsRequest(run=name))
        (pending,) = listed.interactions
        assert pending.state == ip.INTERACTION_STATE_PENDING  # not cancelled by the start
        answer = isv.SubmitInputRequest(
            name=pending.name, fields=[ip.FieldValue(ref="E1", value="me@example.com")]
        )
        with pytest.raises(grpc.aio.AioRpcError) as refused:  # said so, not silently lost
            await on_third.SubmitInput(answer)
        assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED
    await a.CancelRun(run_service_pb2.CancelRunRequest(name=name))
    assert names(await read_rest(started))[-2:] == ["complete", "done"]


async def test_the_runs_of_a_killed_replica_are_closed_by_the_next_to_start(
    replicas: list[ServerProcess],
    stubs: list[run_service_pb2_grpc.RunServiceStub],
    start_replica: Callable[..., ServerProcess],
) -> None:
    a, b = stubs
    started = a.Automate(automate_request(steps=2, hold=True))
    name = (await started.read()).event.run
    on_b = watch(b, name)
    seen = [(await on_b.read()).event]  # type: ignore[attr-defined]
    replicas[0].kill()  # SIGKILL: no terminal events from A
    start_replica()
    seen += await read_rest(on_b)
    assert [e.sequence for e in seen] == list(range(1, len(seen) + 1))
    assert names(seen)[-2:] == ["complete", "done"]
    run = await get_run(replicas[1].port, name)
    assert run.state == run_pb2.RUN_STATE_FAILED and run.last_sequence == len(seen)


async def test_live_replicas_close_the_runs_of_a_killed_one_once(
    start_replica: Callable[..., ServerProcess],
) -> None:
    """No replica restarts: the two survivors both sweep every 0.5 s, one of them claims the
    run, and the watcher on B gets the ending exactly once, gapless."""
    sweeping_ending = {"OUTRIDER_FAILOVER_INTERVAL": "0.5", "OUTRIDER_FAILOVER_RESUMES": "0"}
    a, *survivors = [start_replica(**sweeping_ending) for _ in range(3)]
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{r.port}") for r in (a, *survivors)]
    try:
        on_a, on_b, _ = (run_service_pb2_grpc.RunServiceStub(c) for c in channels)
        started = on_a.Automate(automate_request(steps=2, hold=True))
        name = (await started.read()).event.run
        watcher = watch(on_b, name)
        seen = [(await watcher.read()).event]  # type: ignore[attr-defined]
        a.kill()  # SIGKILL: A writes nothing more
        seen += await asyncio.wait_for(read_rest(watcher), timeout=60)
        assert [e.sequence for e in seen] == list(range(1, len(seen) + 1))
        assert names(seen)[-2:] == ["complete", "done"]
        assert names(seen).count("done") == 1
        run = await get_run(survivors[1].port, name)
        assert run.state == run_pb2.RUN_STATE_FAILED and run.last_sequence == len(seen)
        assert run.outcome.error_code == "SERVER_RESTARTED"
    finally:
        for channel in channels:
            await channel.close()
