"""Sessions across replicas sharing PostgreSQL: the replica that created a session holds it, and a
run's start or an end from any other replica is relayed there. When that replica is killed, every
watcher on the others sees the session's run end and then the session end as lost; nothing
carries on as if its browser survived."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import grpc
import pytest

from outrider.v1 import run_pb2, run_service_pb2, run_service_pb2_grpc, session_pb2
from outrider.v1 import session_service_pb2 as ss
from tests.sessions.support import create, kinds, run_in, sessions_stub
from tests.support.harness import ServerProcess, rich_error

SWEEPING = {
    "OUTRIDER_FAILOVER_INTERVAL": "0.5",
    "OUTRIDER_CLUSTER_SECRET": "sessions-secret-" + "s" * 24,
}
pytestmark = pytest.mark.timeout(120)


@pytest.fixture
async def channels(
    start_replica: Callable[..., ServerProcess],
) -> AsyncIterator[list[grpc.aio.Channel]]:
    processes = [start_replica(**SWEEPING) for _ in range(3)]
    opened = [grpc.aio.insecure_channel(f"127.0.0.1:{p.port}") for p in processes]
    opened[0].process = processes[0]  # type: ignore[attr-defined]
    for process in processes:
        process.drain()  # their access lines never fill a pipe
    yield opened
    for channel in opened:
        await channel.close()


async def until_ended(
    stream: AsyncIterator[ss.StreamSessionEventsResponse],
) -> list[session_pb2.SessionEvent]:
    events = []
    async for response in stream:
        if response.HasField("event"):
            events.append(response.event)
    return events


async def first_action(stream: AsyncIterator[ss.StreamSessionEventsResponse]) -> None:
    async for response in stream:
        if response.HasField("event") and kinds([response.event]) == ["agent:action"]:
            return


async def test_a_killed_holder_ends_its_session_as_lost_on_every_watcher(
    channels: list[grpc.aio.Channel],
) -> None:
    session = await create(channels[0], idle=120, life=300)
    runs = [run_service_pb2_grpc.RunServiceStub(c) for c in channels]
    run = (await runs[1].CreateRun(run_in(session.name, hold=True))).run  # relayed to 0
    assert run.options.session == session.name
    with pytest.raises(grpc.aio.AioRpcError) as busy:
        await runs[2].CreateRun(run_in(session.name))
    assert rich_error(busy.value).reason == "SESSION_BUSY"
    request = ss.StreamSessionEventsRequest(name=session.name)
    watchers = [sessions_stub(c).StreamSessionEvents(request) for c in channels[1:]]
    for watcher in watchers:
        await asyncio.wait_for(first_action(watcher), 30)
    channels[0].process.kill()  # type: ignore[attr-defined]
    for watcher in watchers:
        rest = await asyncio.wait_for(until_ended(watcher), 60)
        assert kinds(rest)[-3:] == ["complete", "done", "session_ended"], kinds(rest)
        assert rest[-1].session_ended.reason == session_pb2.SESSION_END_REASON_LOST
        assert rest[-2].invocation == run.name
    got = await sessions_stub(channels[2]).GetSession(ss.GetSessionRequest(name=session.name))
    assert got.session.state == session_pb2.SESSION_STATE_ENDED
    ended_run = (await runs[2].GetRun(run_service_pb2.GetRunRequest(name=run.name))).run
    assert ended_run.state == run_pb2.RUN_STATE_FAILED
    assert ended_run.outcome.error_code == "SESSION_LOST"
    with pytest.raises(grpc.aio.AioRpcError) as lost:
        await runs[1].CreateRun(run_in(session.name))
    assert rich_error(lost.value).reason == "SESSION_LOST"


async def test_ending_a_session_from_another_replica_is_relayed_to_its_holder(
    channels: list[grpc.aio.Channel],
) -> None:
    session = await create(channels[0], idle=120, life=300)
    ended = await sessions_stub(channels[2]).EndSession(
        ss.EndSessionRequest(name=session.name, reason="from elsewhere")
    )
    assert ended.session.state == session_pb2.SESSION_STATE_ENDED
    assert ended.session.end_reason == session_pb2.SESSION_END_REASON_ENDED
    assert "from elsewhere" in ended.session.end_message
    listed = await sessions_stub(channels[1]).ListSessions(ss.ListSessionsRequest())
    assert [s.state for s in listed.sessions] == [session_pb2.SESSION_STATE_ENDED]


async def test_an_api_only_replica_has_a_worker_hold_its_sessions(
    start_replica: Callable[..., ServerProcess],
) -> None:
    worker = start_replica(**SWEEPING)
    api = start_replica(**SWEEPING, OUTRIDER_ROLE="api")
    for process in (worker, api):
        process.drain()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{api.port}") as channel:
        session = await create(channel, idle=120, life=300)
        assert session.state == session_pb2.SESSION_STATE_IDLE
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        run = (await runs.CreateRun(run_in(session.name, steps=1))).run
        events = sessions_stub(channel).StreamSessionEvents(
            ss.StreamSessionEventsRequest(name=session.name)
        )
        seen: list[session_pb2.SessionEvent] = []
        async for response in events:
            if response.HasField("event"):
                seen.append(response.event)
                if kinds(seen)[-1] == "done":
                    break
        assert {e.invocation for e in seen if e.invocation} == {run.name}
        ended = await sessions_stub(channel).EndSession(ss.EndSessionRequest(name=session.name))
        assert ended.session.state == session_pb2.SESSION_STATE_ENDED
