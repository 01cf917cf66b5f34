"""Sessions (SessionService), as `AsyncClient.sessions`: a browser, or a research thread, kept
between runs on the server. A run joins one with `Options(session=...)`.

async with AsyncClient("localhost:50051") as client:
    session = await client.sessions.create("automate", start_url="https://shop.example/")
    in_it = Options(session=session.name)
    async for event in client.automate("Add the red mug to the cart", options=in_it):
        ...
    async for event in client.automate("Check out", options=in_it):
        ...
    await client.sessions.end(session.name)

(Not `session.py`: that is an interactive run's bidirectional stream.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

import grpc
from google.protobuf import duration_pb2

from outrider.client._grpc import UnaryCalls
from outrider.client._resume import Cursor, ResumePolicy, follow
from outrider.client.vault import profile_name
from outrider.v1 import run_pb2, session_pb2, session_service_pb2
from outrider.v1 import session_service_pb2_grpc as ssg

KINDS = {"automate": run_pb2.RUN_KIND_AUTOMATE, "research": run_pb2.RUN_KIND_RESEARCH}


def session_name(session: str) -> str:
    """ "sessions/{id}" for an id or a name ("" for "")."""
    return session if not session or session.startswith("sessions/") else f"sessions/{session}"


class AsyncSessions(UnaryCalls):
    def __init__(
        self,
        channel: grpc.aio.Channel,
        metadata: Sequence[tuple[str, str]],
        deadline: timedelta | None,
        policy: ResumePolicy,
    ) -> None:
        super().__init__(metadata, deadline)
        self._stub = ssg.SessionServiceStub(channel)  # type: ignore[no-untyped-call]
        self._policy = policy

    async def create(
        self,
        kind: str = "automate",
        *,
        start_url: str = "",
        idle_timeout: timedelta | None = None,
        max_life: timedelta | None = None,
        labels: Mapping[str, str] | None = None,
        profile: str = "",
        request_id: str = "",
    ) -> session_pb2.Session:
        """A new session of `kind` ("automate": a live browser, or "research"), live once this
        returns; the server's defaults for the timeouts left unset. `profile` ("profiles/{id}"
        or the id): the browser starts from its saved state (read only). With a `request_id`
        (a UUID), a create repeated with it (a retry after a lost connection) returns the session
        the first one made instead of another."""
        request = session_service_pb2.CreateSessionRequest(
            kind=KINDS[kind],
            start_url=start_url,
            labels=dict(labels or {}),
            profile=profile_name(profile) if profile else "",
            request_id=request_id,
        )
        if idle_timeout is not None:
            request.idle_timeout.CopyFrom(_duration(idle_timeout))
        if max_life is not None:
            request.max_life.CopyFrom(_duration(max_life))
        return (await self._unary(self._stub.CreateSession, request)).session  # type: ignore[no-any-return]

    async def get(self, session: str) -> session_pb2.Session:
        request = session_service_pb2.GetSessionRequest(name=session_name(session))
        return (await self._unary(self._stub.GetSession, request)).session  # type: ignore[no-any-return]

    async def list(
        self,
        *,
        page_size: int = 0,
        page_token: str = "",
        states: Iterable[session_pb2.SessionState] = (),
        kind: str = "",
    ) -> tuple[list[session_pb2.Session], str]:
        """A page of sessions, newest first, and the next page's token ("" on the last)."""
        request = session_service_pb2.ListSessionsRequest(
            page_size=page_size,
            page_token=page_token,
            states=list(states),
            kind=KINDS.get(kind, run_pb2.RUN_KIND_UNSPECIFIED),
        )
        response = await self._unary(self._stub.ListSessions, request)
        return list(response.sessions), response.next_page_token

    async def end(self, session: str, *, reason: str = "") -> session_pb2.Session:
        """Ends the session (its active run is cancelled first); idempotent."""
        request = session_service_pb2.EndSessionRequest(name=session_name(session), reason=reason)
        return (await self._unary(self._stub.EndSession, request)).session  # type: ignore[no-any-return]

    def events(self, session: str, *, after: int = 0) -> AsyncIterator[session_pb2.SessionEvent]:
        """The session's events (its own, and each of its runs' in order) above `after`, then
        live ones until it ends; a dropped connection is resumed after the last one seen."""
        cursor = Cursor(session_name(session), after)
        return follow(self._open(cursor.run, after), self._open, self._policy, cursor)

    def _open(self, session: str, after: int) -> Any:
        request = session_service_pb2.StreamSessionEventsRequest(name=session, after_sequence=after)
        return self._stub.StreamSessionEvents(request, metadata=self._metadata)


def _duration(value: timedelta) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromTimedelta(value)
    return duration
