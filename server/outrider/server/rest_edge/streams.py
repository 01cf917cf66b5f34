"""SSE responses over the core's event streams.

Errors the core reports before streaming (unknown run, bad cursor) raise from `open_events`, so
the route answers with a proper HTTP status. Once the response has begun, a failure becomes the
seed's `error` event and the end of the stream.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass

from starlette.responses import StreamingResponse

from outrider.server.core.event_log import WatchItem
from outrider.server.core.principals import Principal
from outrider.server.core.runs import RunManager
from outrider.server.rest_edge import sse
from outrider.server.rest_edge.error_events import error_event
from outrider.v1 import run_event_pb2, run_pb2

log = logging.getLogger(__name__)

APPROVAL_EVENTS_HEADER = "x-outrider-approval-events"
NO_BUFFERING = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


@dataclass(frozen=True)
class StreamSettings:
    approval_events: bool  # also send approval_requested/approval_resolved/input_resolved
    retry_ms: int


def open_events(
    runs: RunManager, principal: Principal, run_id: str, after: int, cancel_on_disconnect: bool
) -> AsyncGenerator[WatchItem, None]:
    """The run's events after `after`, then live ones. Errors raise now, not lazily."""
    items = runs.watch(run_id, after, principal)
    return _guarded(runs, principal, run_id, items, cancel_on_disconnect)


async def _guarded(
    runs: RunManager,
    principal: Principal,
    run_id: str,
    items: AsyncGenerator[WatchItem, None],
    cancel_on_disconnect: bool,
) -> AsyncGenerator[WatchItem, None]:
    finished = False
    try:
        async with contextlib.aclosing(items):
            async for item in items:
                yield item
        finished = True
    finally:
        if cancel_on_disconnect and not finished:
            runs.cancel_on_disconnect(run_id, principal)


def sse_response(
    run: run_pb2.Run, items: AsyncGenerator[WatchItem, None], settings: StreamSettings
) -> StreamingResponse:
    run_id = run.name.removeprefix("runs/")
    headers = NO_BUFFERING | {
        "Location": f"/v1/runs/{run_id}/events",
        "Outrider-Run": run.name,
    }
    body = _body(run, items, settings)
    return StreamingResponse(body, headers=headers, media_type="text/event-stream")


async def _body(
    run: run_pb2.Run, items: AsyncGenerator[WatchItem, None], settings: StreamSettings
) -> AsyncIterator[bytes]:
    yield sse.comment(f"outrider {run.name}")
    retry: int | None = settings.retry_ms
    last = 0
    async with contextlib.aclosing(items):
        try:
            async for item in items:
                if isinstance(item, run_event_pb2.Heartbeat):
                    yield sse.heartbeat(item.last_sequence)
                    continue
                last = item.sequence
                if settings.approval_events or item.WhichOneof("payload") in sse.TABSTACK_ARMS:
                    yield sse.event_block(item, retry)
                    retry = None
        except Exception:
            log.exception("the event stream of %s failed", run.name)
            yield sse.block(last, "error", error_event(run.kind, "internal error"), retry)
