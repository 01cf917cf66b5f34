"""Why a client cancelled a call. `notifications/cancelled` may carry a reason; the SDK applies
the cancel (it interrupts the call) and then hands the notification to the server's middleware,
where `CancelReasons` keeps the reason for the call to read while it decides what its run does.

A client's request timeout is not a stop: the SDKs cancel a call they stopped waiting for with a
reason saying so (the TypeScript SDK's "Request timed out", after 60 s by default, progress or
not; the Python SDK's "timed out after 60s"), while a person who pressed stop leaves the run as
a cancelled one.
"""

from __future__ import annotations

import re
import weakref
from collections import OrderedDict
from typing import Any

import anyio

from mcp.server import ServerRequestContext
from mcp.server.context import CallNext, HandlerResult

CANCELLED = "notifications/cancelled"
_TIMEOUT = re.compile(r"time[ds]?[ -]?out|deadline", re.IGNORECASE)
_KEPT = 64  # reasons kept per connection for calls that have not read theirs (reads, lists)
_REASON_CHARS = 200


def is_timeout(reason: str) -> bool:
    return bool(_TIMEOUT.search(reason))


class _Slot:
    def __init__(self) -> None:
        self.reason = ""
        self.arrived = anyio.Event()


class CancelReasons:
    """Server middleware: the reasons of the cancels a connection's client sent, by request id."""

    def __init__(self) -> None:
        self._slots: weakref.WeakKeyDictionary[object, OrderedDict[str, _Slot]] = (
            weakref.WeakKeyDictionary()
        )

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method == CANCELLED and ctx.request_id is None:
            params = ctx.params or {}
            slot = self._slot(ctx, str(params.get("requestId")))
            reason = params.get("reason")
            slot.reason = (
                " ".join(reason.split())[:_REASON_CHARS] if isinstance(reason, str) else ""
            )
            slot.arrived.set()
        return await call_next(ctx)

    async def reason(self, ctx: ServerRequestContext[Any, Any], patience: float) -> str:
        """The reason the client gave for cancelling the call of `ctx` ("" for none). The call
        is interrupted before the notification reaches the middleware: wait for it, briefly."""
        key = str(ctx.request_id)
        slot = self._slot(ctx, key)
        with anyio.move_on_after(patience):
            await slot.arrived.wait()
        slots = self._slots.get(_connection(ctx))
        if slots is not None:
            slots.pop(key, None)
        return slot.reason

    def _slot(self, ctx: ServerRequestContext[Any, Any], key: str) -> _Slot:
        slots = self._slots.setdefault(_connection(ctx), OrderedDict())
        slot = slots.get(key)
        if slot is None:
            slot = slots[key] = _Slot()
            while len(slots) > _KEPT:
                slots.popitem(last=False)
        return slot


def _connection(ctx: ServerRequestContext[Any, Any]) -> object:
    """The connection the message came on (request ids are unique per connection): its outbound
    channel, which a handshake-era connection has for itself and which a 2026-07-28 stdio
    stream's messages share (each has a Connection of its own). The SDK keeps the connection on
    the per-message session (pinned SDK version, covered by the tests)."""
    connection = getattr(ctx.session, "_connection", None)
    outbound = getattr(connection, "outbound", None)
    return outbound if outbound is not None else ctx.session
