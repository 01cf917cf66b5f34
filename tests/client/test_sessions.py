"""Sessions through the Python client: `AsyncClient.sessions` and `Options(session=...)`, and the
blocking client's session calls, against a real server."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from outrider.client import (
    AsyncClient,
    Client,
    FailedPreconditionError,
    Options,
    automate_params,
    event_name,
)
from outrider.v1 import params_pb2, session_pb2
from tests.support.harness import ServerProcess


async def test_runs_in_a_session_and_its_stream_through_the_async_client(
    client: AsyncClient,
) -> None:
    session = await client.sessions.create("automate", idle_timeout=timedelta(minutes=1))
    assert session.idle_timeout.ToTimedelta() == timedelta(minutes=1)
    in_it = Options(session=session.name)
    first = [event_name(e) async for e in client.automate("one", options=in_it)]
    assert first[-1] == "done"
    holding = await client.create_run(client_params("two", hold=True), options=in_it)
    with pytest.raises(FailedPreconditionError) as busy:
        await client.create_run(client_params("three"), options=in_it)
    assert busy.value.reason == "SESSION_BUSY"
    ended = await client.sessions.end(session.name, reason="enough")
    assert ended.state == session_pb2.SESSION_STATE_ENDED
    assert (await client.get_run(holding.name)).outcome.error_code == "CANCELLED"
    events = [e async for e in client.sessions.events(session.name)]
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    assert events[-1].session_ended.reason == session_pb2.SESSION_END_REASON_ENDED
    rest = [e.sequence async for e in client.sessions.events(session.name, after=4)]
    assert rest == [e.sequence for e in events[4:]]


def client_params(task: str, **plan: object) -> params_pb2.AutomateParams:
    return automate_params(task, data=plan)


def test_the_blocking_client_has_the_session_calls(server_process: ServerProcess) -> None:
    with Client(f"127.0.0.1:{server_process.port}") as client:
        request_id = str(uuid.uuid4())
        session = client.create_session("research", request_id=request_id)
        assert client.create_session("research", request_id=request_id).name == session.name
        assert client.get_session(session.name).kind == session.kind
        listed, token = client.list_sessions(page_size=5)
        assert [s.name for s in listed] == [session.name] and token == ""
        assert client.end_session(session.name).state == session_pb2.SESSION_STATE_ENDED
        kinds = [e.WhichOneof("payload") for e in client.session_events(session.name)]
        assert kinds == ["session_started", "session_ended"]
