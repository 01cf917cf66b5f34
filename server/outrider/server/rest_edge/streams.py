"""SSE responses over the core's event streams.

Errors the core reports before streaming (unknown run, bad cursor) raise from
`RunManager.watch_batches`, so the route answers with a proper HTTP status. Once the response has
begun, a failure becomes the seed's `error` event and the end of the stream.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from dataclasses import dataclass

from starlette.responses import StreamingResponse

from outrider.server.core.errors import OutriderError
from outrider.server.core.events.log import WatchBatch
from outrider.server.rest_edge import sse
from outrider.server.rest_edge.error_events import error_event
from outrider.server.telemetry.incidents import incident, internal_message
from outrider.v1 import run_event_pb2, run_pb2

log = logging.getLogger(__name__)

APPROVAL_EVENTS_HEADER = "x-outrider-approval-events"
NO_BUFFERING = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
CHUNK_BYTES = 64 * 1024


@dataclass(frozen=True)
class StreamSettings:
    # also send our own events (approvals, input, queue, recipes, takeovers) and fields beyond
    # the Tabstack schema (cached-token counts)
    approval_events: bool
    retry_ms: int
    root_path: str = ""  # OUTRIDER_PUBLIC_URL's path prefix, for the Location header


def sse_response(
    run: run_pb2.Run, items: AsyncGenerator[WatchBatch, None], settings: StreamSettings
) -> StreamingResponse:
    run_id = run.name.removeprefix("runs/")
    headers = NO_BUFFERING | {
        "Location": f"{settings.root_path}/v1/runs/{run_id}/events",
        "Outrider-Run": run.name,
    }
    body = _body(run, items, settings)
    return StreamingResponse(body, headers=headers, media_type="text/event-stream")


async def _body(
    run: run_pb2.Run, items: AsyncGenerator[WatchBatch, None], settings: StreamSettings
) -> AsyncIterator[bytes]:
    yield sse.comment(f"outrider {run.name}")
    encoder = _Encoder(settings)
    async with contextlib.aclosing(items):
        try:
            async for batch in items:
                if isinstance(batch, run_event_pb2.Heartbeat):
                    yield sse.heartbeat(batch.last_sequence)
                    continue
                for chunk in encoder.chunks(batch):
                    yield chunk
        except OutriderError as error:  # e.g. RUN_DELETED: the run went while it was replayed
            yield encoder.error_block(run.kind, error.message, error.reason)
        except Exception:
            ident = incident(log, "the event stream of %s failed", run.name)
            yield encoder.error_block(run.kind, internal_message(ident))


class _Encoder:
    """Event blocks joined into chunks of about CHUNK_BYTES: one write for many events, which is
    where an SSE stream's time goes (each write is a send through the ASGI stack and a syscall).
    `retry:` rides on the first block of the response."""

    def __init__(self, settings: StreamSettings) -> None:
        self._settings = settings
        self._retry: int | None = settings.retry_ms
        self._last = 0

    def chunks(self, batch: list[run_event_pb2.RunEvent]) -> Iterator[bytes]:
        blocks: list[bytes] = []
        size = 0
        for event in batch:
            self._last = event.sequence
            if not self._shown(event):
                continue
            block = sse.event_block(event, self._retry, self._settings.approval_events)
            self._retry = None
            blocks.append(block)
            size += len(block)
            if size >= CHUNK_BYTES:
                yield b"".join(blocks)
                blocks, size = [], 0
        if blocks:
            yield b"".join(blocks)

    def _shown(self, event: run_event_pb2.RunEvent) -> bool:
        return self._settings.approval_events or event.WhichOneof("payload") in sse.TABSTACK_ARMS

    def error_block(
        self, kind: int, message: str = "internal error", code: str = "INTERNAL"
    ) -> bytes:
        return sse.block(self._last, "error", error_event(kind, message, code), self._retry)
