"""A session's life over gRPC, with the test-only ScriptAgent (no browser): runs one at a time,
its stream across runs, its idle timeout and maximum life, ending it, and what its runs are told
of the earlier ones."""

from __future__ import annotations

import grpc
import pytest

from outrider.v1 import run_pb2, run_service_pb2, session_pb2, session_service_pb2
from tests.conftest import HarnessFactory
from tests.sessions.support import create, kinds, run_in, session_events, sessions_stub
from tests.support.harness import eventually, rich_error

ENDED = session_pb2.SESSION_STATE_ENDED
pytestmark = pytest.mark.timeout(60)


async def test_runs_take_the_session_one_at_a_time_and_its_stream_numbers_them_all(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness()
    stub = sessions_stub(harness.channel)
    session = await create(harness.channel, idle=60, life=120, labels={"purpose": "cart"})
    assert session.state == session_pb2.SESSION_STATE_IDLE and session.labels == {"purpose": "cart"}
    assert session.last_sequence == 1 and session.HasField("idle_expire_time")

    holding = (await harness.runs.CreateRun(run_in(session.name, hold=True))).run
    assert holding.options.session == session.name
    with pytest.raises(grpc.aio.AioRpcError) as busy:
        await harness.runs.CreateRun(run_in(session.name))
    error = rich_error(busy.value)
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_BUSY")
    assert holding.name in error.message
    now = (await stub.GetSession(session_service_pb2.GetSessionRequest(name=session.name))).session
    assert now.state == session_pb2.SESSION_STATE_RUNNING and now.active_run == holding.name
    assert not now.HasField("idle_expire_time")

    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=holding.name))
    second = (await harness.runs.CreateRun(run_in(session.name, "the follow-up"))).run

    async def second_ended() -> bool:
        got = await harness.runs.GetRun(run_service_pb2.GetRunRequest(name=second.name))
        return bool(got.run.state == run_pb2.RUN_STATE_SUCCEEDED)

    await eventually(second_ended)
    await stub.EndSession(session_service_pb2.EndSessionRequest(name=session.name, reason="done"))
    events = await session_events(harness.channel, session.name)
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    assert kinds(events)[0] == "session_started" and kinds(events)[-1] == "session_ended"
    runs = [e.invocation for e in events if e.invocation]
    first_run = [r for r in runs if r == holding.name]
    assert runs == first_run + [second.name] * (len(runs) - len(first_run))
    assert kinds(events).count("done") == 2  # each run's events end with its own done
    for event in events[1:-1]:
        assert event.run_event.run == event.invocation
    # resumable from any sequence: exactly the rest
    tail = await session_events(harness.channel, session.name, after=5)
    assert [e.sequence for e in tail] == [e.sequence for e in events[5:]]
    ended = events[-1].session_ended
    assert ended.reason == session_pb2.SESSION_END_REASON_ENDED and "done" in ended.message

    # the follow-up was told of the first run, which was cancelled
    view = harness.agent.session_views[-1]
    assert view.name == session.name and view.earlier_runs == 1 and view.left_out == 0
    assert "a task in a session" in view.memory and "cancelled" in view.memory


async def test_an_idle_session_ends_and_refuses_runs_with_its_reason(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness()
    session = await create(harness.channel, idle=1, life=60)
    events = await session_events(harness.channel, session.name)
    assert kinds(events) == ["session_started", "session_ended"]
    assert events[-1].session_ended.reason == session_pb2.SESSION_END_REASON_IDLE
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await harness.runs.CreateRun(run_in(session.name))
    error = rich_error(refused.value)
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_IDLE")
    got = await sessions_stub(harness.channel).GetSession(
        session_service_pb2.GetSessionRequest(name=session.name)
    )
    assert got.session.state == ENDED and got.session.HasField("end_time")
    assert got.session.end_reason == session_pb2.SESSION_END_REASON_IDLE


async def test_the_maximum_life_ends_the_session_and_cancels_its_active_run(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness()
    session = await create(harness.channel, idle=2, life=2)
    run = (await harness.runs.CreateRun(run_in(session.name, hold=True))).run
    events = await session_events(harness.channel, session.name)
    assert kinds(events)[-1] == "session_ended"
    assert events[-1].session_ended.reason == session_pb2.SESSION_END_REASON_EXPIRED
    assert kinds(events)[-3:-1] == ["complete", "done"]  # the run ended first
    got = (await harness.runs.GetRun(run_service_pb2.GetRunRequest(name=run.name))).run
    assert got.state == run_pb2.RUN_STATE_CANCELLED and "maximum life" in got.outcome.error_message
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await harness.runs.CreateRun(run_in(session.name))
    assert rich_error(refused.value).reason == "SESSION_EXPIRED"


async def test_ending_is_idempotent_and_names_who_ended_it(make_harness: HarnessFactory) -> None:
    harness = await make_harness()
    stub = sessions_stub(harness.channel)
    session = await create(harness.channel)
    request = session_service_pb2.EndSessionRequest(name=session.name, reason="no more")
    first = (await stub.EndSession(request)).session
    again = (await stub.EndSession(request)).session
    assert first == again and first.state == ENDED
    assert first.end_reason == session_pb2.SESSION_END_REASON_ENDED and first.ended_by
    listed = await stub.ListSessions(session_service_pb2.ListSessionsRequest(states=[ENDED]))
    assert [s.name for s in listed.sessions] == [session.name]
    live = await stub.ListSessions(
        session_service_pb2.ListSessionsRequest(states=[session_pb2.SESSION_STATE_IDLE])
    )
    assert list(live.sessions) == []
