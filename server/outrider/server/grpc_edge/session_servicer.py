"""SessionService: each RPC translates its request to one core call and the result back."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import grpc

from outrider.server.core.names import parse_session_name
from outrider.server.core.request_ids import check_request_id
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.grpc_edge.auth import caller, reauthentication
from outrider.server.grpc_edge.errors import streaming, unary
from outrider.server.grpc_edge.streams import REPLAYED_METADATA_KEY
from outrider.v1 import run_event_pb2, session_service_pb2, session_service_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]
Response = session_service_pb2.StreamSessionEventsResponse


class SessionServicer(session_service_pb2_grpc.SessionServiceServicer):
    def __init__(self, sessions: SessionManager) -> None:
        self._sessions = sessions

    @unary
    async def CreateSession(
        self, request: session_service_pb2.CreateSessionRequest, context: Context
    ) -> session_service_pb2.CreateSessionResponse:
        durations = tuple(
            getattr(request, name) if request.HasField(name) else None
            for name in ("idle_timeout", "max_life")
        )
        principal = caller()
        # a relayed create carries the key its first replica checked (a REST key need not be a
        # UUID)
        request_id = request.request_id
        if not principal.relayed:
            request_id = check_request_id(request_id, "request_id")
        created = await self._sessions.create(
            request.kind,
            request.start_url,
            (durations[0], durations[1]),
            request.labels,
            request.profile,
            principal,
            request_id,
        )
        if created.replayed:
            await context.send_initial_metadata(((REPLAYED_METADATA_KEY, "true"),))
        return session_service_pb2.CreateSessionResponse(session=created.session)

    @unary
    async def GetSession(
        self, request: session_service_pb2.GetSessionRequest, context: Context
    ) -> session_service_pb2.GetSessionResponse:
        session = self._sessions.get(parse_session_name(request.name), caller())
        return session_service_pb2.GetSessionResponse(session=session)

    @unary
    async def ListSessions(
        self, request: session_service_pb2.ListSessionsRequest, context: Context
    ) -> session_service_pb2.ListSessionsResponse:
        sessions, token = self._sessions.list(
            request.page_size, request.page_token, list(request.states), request.kind, caller()
        )
        return session_service_pb2.ListSessionsResponse(sessions=sessions, next_page_token=token)

    @unary
    async def EndSession(
        self, request: session_service_pb2.EndSessionRequest, context: Context
    ) -> session_service_pb2.EndSessionResponse:
        name = parse_session_name(request.name)
        session = await self._sessions.end(name, request.reason, caller())
        return session_service_pb2.EndSessionResponse(session=session)

    @streaming
    async def StreamSessionEvents(
        self, request: session_service_pb2.StreamSessionEventsRequest, context: Context
    ) -> AsyncIterator[Response]:
        name = parse_session_name(request.name)
        batches = self._sessions.watch(name, request.after_sequence, caller(), reauthentication())
        async with contextlib.aclosing(batches):
            async for batch in batches:
                if isinstance(batch, run_event_pb2.Heartbeat):
                    yield Response(heartbeat=batch)
                    continue
                for event in batch:
                    yield Response(event=event)
