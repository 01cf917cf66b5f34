"""Sessions on the REST port, an extension beside the Tabstack routes (a Tabstack client that
never names a session is unaffected): each route translates an HTTP request to one core call of
the session manager and the result back. A run joins a session with `options.session` in its
body (POST /v1/automate, /v1/research).

    POST /v1/sessions                        {"kind": "automate"|"research", "startUrl",
                                             "idleTimeout", "maxLife" (seconds), "labels"};
                                             idempotent with an Idempotency-Key header
    GET  /v1/sessions?state=&kind=&pageSize=&pageToken=
    GET  /v1/sessions/{sessionId}
    POST /v1/sessions/{sessionId}/end        {"reason"}
    GET  /v1/sessions/{sessionId}/events     SSE, resumable with Last-Event-ID
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from google.protobuf import duration_pb2
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from outrider.server.core.errors import OutriderError
from outrider.server.core.names import session_id_in_path
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.core.sessions.stream import SessionBatch
from outrider.server.rest_edge import bodies, queries, sse
from outrider.server.rest_edge.auth import principal_of, reauthentication_of
from outrider.server.rest_edge.fields import Reader
from outrider.server.rest_edge.idempotency import REPLAYED_HEADER, idempotency_key
from outrider.server.rest_edge.streams import NO_BUFFERING
from outrider.server.rest_edge.wire import to_json
from outrider.v1 import run_event_pb2, run_pb2, session_pb2

log = logging.getLogger(__name__)


class SessionRoutes:
    def __init__(self, sessions: SessionManager, retry_ms: int) -> None:
        self._sessions = sessions
        self._retry_ms = retry_ms

    async def create(self, request: Request) -> Response:
        read = Reader(await bodies.read_object(request))
        kind = bodies.enum_field(read, run_pb2.RunKind.DESCRIPTOR, "kind")
        start_url = read.string("startUrl", "start_url")
        idle = _duration(read.integer("idleTimeout", "idle_timeout"))
        life = _duration(read.integer("maxLife", "max_life"))
        labels = read.obj("labels") or {}
        profile = read.string("profile")
        read.check()
        key = idempotency_key(request)
        created = await self._sessions.create(
            kind, start_url, (idle, life), _labels(labels), profile, principal_of(request), key
        )
        if created.replayed:
            return JSONResponse(session_json(created.session), 200, {REPLAYED_HEADER: "true"})
        return JSONResponse(session_json(created.session), 201)

    async def list(self, request: Request) -> Response:
        page = queries.page(request)
        states = queries.session_states(request)
        found, token = self._sessions.list(
            page.size, page.token, states, page.kind, principal_of(request)
        )
        return JSONResponse({"sessions": [session_json(s) for s in found], "nextPageToken": token})

    async def get(self, request: Request) -> Response:
        session = self._sessions.get(_session_id(request), principal_of(request))
        return JSONResponse(session_json(session))

    async def end(self, request: Request) -> Response:
        reason = bodies.cancel_reason(await bodies.read_object(request, required=False))
        session = await self._sessions.end(_session_id(request), reason, principal_of(request))
        return JSONResponse(session_json(session))

    async def events(self, request: Request) -> Response:
        session_id = _session_id(request)
        principal, after = principal_of(request), queries.cursor(request)
        batches = self._sessions.watch(session_id, after, principal, reauthentication_of(request))
        body = _events(batches, self._retry_ms)
        headers = NO_BUFFERING | {"Outrider-Session": f"sessions/{session_id}"}
        return StreamingResponse(body, headers=headers, media_type="text/event-stream")


def session_json(session: session_pb2.Session) -> dict[str, Any]:
    """The session as JSON, its durations in seconds."""
    shown: dict[str, Any] = to_json(session)
    shown["idleTimeout"] = session.idle_timeout.ToNanoseconds() / 1e9
    shown["maxLife"] = session.max_life.ToNanoseconds() / 1e9
    return shown


async def _events(
    batches: AsyncGenerator[SessionBatch, None], retry_ms: int
) -> AsyncIterator[bytes]:
    """Each event as `id: <session sequence>`, `event: <name>` (its run event's, e.g.
    "agent:action", or "session:started" / "session:ended"), `data: <the whole SessionEvent>`."""
    retry: int | None = retry_ms
    last = 0
    async with contextlib.aclosing(batches):
        try:
            async for batch in batches:
                if isinstance(batch, run_event_pb2.Heartbeat):
                    yield sse.heartbeat(batch.last_sequence)
                    continue
                for event in batch:
                    last = event.sequence
                    yield sse.block(last, _name(event), to_json(event, True), retry)
                    retry = None
        except OutriderError as error:
            yield sse.block(last, "error", {"reason": error.reason, "message": error.message})
        except Exception:
            log.exception("a session's event stream failed")
            yield sse.block(last, "error", {"reason": "INTERNAL", "message": "internal error"})


def _name(event: session_pb2.SessionEvent) -> str:
    if event.HasField("run_event"):
        return sse.named_payload(event.run_event)[0]
    return str(event.WhichOneof("payload")).replace("session_", "session:")


def _duration(seconds: int | None) -> duration_pb2.Duration | None:
    if seconds is None:
        return None
    return duration_pb2.Duration(seconds=seconds)


def _labels(labels: dict[str, Any]) -> dict[str, str]:
    return {
        str(key): value if isinstance(value, str) else str(value) for key, value in labels.items()
    }


def _session_id(request: Request) -> str:
    return session_id_in_path(request.path_params["sessionId"])
