"""Sessions over gRPC for the tests: creating one, starting runs in it, reading its stream."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc
from google.protobuf import duration_pb2, struct_pb2

from outrider.server.core.events.names import event_name
from outrider.v1 import params_pb2, run_pb2, run_service_pb2, session_pb2, session_service_pb2
from outrider.v1 import session_service_pb2_grpc as ssg

Metadata = Sequence[tuple[str, str]]
AUTOMATE = run_pb2.RUN_KIND_AUTOMATE


def sessions_stub(channel: grpc.aio.Channel) -> ssg.SessionServiceStub:
    return ssg.SessionServiceStub(channel)


def create_request(
    kind: int = AUTOMATE,
    start_url: str = "",
    idle: float | None = None,
    life: float | None = None,
    labels: dict[str, str] | None = None,
    profile: str = "",
) -> session_service_pb2.CreateSessionRequest:
    request = session_service_pb2.CreateSessionRequest(
        kind=kind,  # type: ignore[arg-type]
        start_url=start_url,
        labels=labels or {},
        profile=profile,
    )
    if idle is not None:
        request.idle_timeout.CopyFrom(seconds(idle))
    if life is not None:
        request.max_life.CopyFrom(seconds(life))
    return request


def seconds(value: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromNanoseconds(round(value * 1e9))
    return duration


async def create(
    channel: grpc.aio.Channel, metadata: Metadata = (), **kwargs: Any
) -> session_pb2.Session:
    response: session_service_pb2.CreateSessionResponse = await sessions_stub(
        channel
    ).CreateSession(create_request(**kwargs), metadata=metadata, timeout=60)
    return response.session


async def end(channel: grpc.aio.Channel, name: str, metadata: Metadata = ()) -> None:
    request = session_service_pb2.EndSessionRequest(name=name)
    await sessions_stub(channel).EndSession(request, metadata=metadata, timeout=60)


def run_in(
    session: str, task: str = "a task in a session", **plan: Any
) -> run_service_pb2.CreateRunRequest:
    """A browser run in `session`; `plan`: the ScriptAgent's instructions (its data)."""
    data = struct_pb2.Struct()
    data.update(plan)
    return run_service_pb2.CreateRunRequest(
        automate=params_pb2.AutomateParams(task=task, data=data),
        options=params_pb2.RunOptions(session=session),
    )


async def session_events(
    channel: grpc.aio.Channel, name: str, after: int = 0, metadata: Metadata = ()
) -> list[session_pb2.SessionEvent]:
    """The session's events after `after` until its stream ends (the session ended)."""
    stream = sessions_stub(channel).StreamSessionEvents(
        session_service_pb2.StreamSessionEventsRequest(name=name, after_sequence=after),
        metadata=metadata,
        timeout=60,
    )
    return [r.event async for r in stream if r.HasField("event")]


async def events_until(
    stream: AsyncIterator[session_service_pb2.StreamSessionEventsResponse], count: int
) -> list[session_pb2.SessionEvent]:
    """The first `count` events of an open session stream."""
    events: list[session_pb2.SessionEvent] = []
    async for response in stream:
        if response.HasField("event"):
            events.append(response.event)
            if len(events) == count:
                return events
    raise AssertionError(f"the stream ended after {len(events)} events")


def kinds(events: Sequence[session_pb2.SessionEvent]) -> list[str]:
    """Each event's payload arm, a run event as its run's event name."""
    return [
        event_name(e.run_event) if e.HasField("run_event") else str(e.WhichOneof("payload"))
        for e in events
    ]
