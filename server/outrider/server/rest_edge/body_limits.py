"""Request bodies on the REST port, for every door on it (the API, the console, /a2a, /mcp; the
composer, outrider.server.rest_port, puts a guard in front of each): a body whose declared size
exceeds the door's limit is refused before a byte of it is read (413); one sent without a size
is counted as it arrives (413 once over). A body that stalls (no byte for
OUTRIDER_BODY_READ_TIMEOUT seconds) is cut with 408, and when the server begins to stop, every
body still arriving is cut with 503, so an upload neither holds a connection forever nor holds
up the shutdown. Each refusal is in the door's own error shape and closes the connection.

The door's application is stopped where it reads (its `receive` raises `BodyCut`, which no
`except Exception` of the door catches), so it never answers a body it did not get whole."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

Refusal = Callable[[int, str, str], Response]  # (status, reason, message) -> the door's answer


class BodyCut(BaseException):
    """Raised into a door that was reading a body the guard refused."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status, self.reason, self.message = status, reason, message


class BodyLimits:
    """The REST port's guards share its read timeout and its stop."""

    def __init__(self, read_timeout: float) -> None:
        self.read_timeout = read_timeout
        self._stopped: asyncio.Future[None] | None = None

    def guard(self, app: ASGIApp, limit: int, refusal: Refusal) -> ASGIApp:
        return BodyGuard(app, self, limit, refusal)

    def stopped(self) -> asyncio.Future[None]:
        """Done once the server began to stop."""
        if self._stopped is None:
            self._stopped = asyncio.get_running_loop().create_future()
        return self._stopped

    async def stop(self, limit: float) -> None:
        """The REST server's stopping hook: bodies still arriving are cut now."""
        if not self.stopped().done():
            self.stopped().set_result(None)


class BodyGuard:
    def __init__(self, app: ASGIApp, limits: BodyLimits, limit: int, refusal: Refusal) -> None:
        self.app = app  # the door's application
        self._limits = limits
        self._limit = limit
        self._refusal = refusal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > self._limit:
            await self._refuse(scope, send, too_large(self._limit))
            return
        upload = _Upload(receive, send, self._limits, self._limit)
        try:
            await self.app(scope, upload.receive, upload.send)
        except* BodyCut as cuts:  # a group when the door read in a task of its own
            if not upload.answered:
                await self._refuse(scope, send, _first(cuts))

    async def _refuse(self, scope: Scope, send: Send, cut: BodyCut) -> None:
        response = self._refusal(cut.status, cut.reason, cut.message)
        response.headers["connection"] = "close"  # the rest of the body is not read
        await response(scope, _nothing, send)


def too_large(limit: int) -> BodyCut:
    return BodyCut(413, "TOO_LARGE", f"request bodies here are at most {limit:,} bytes")


def _first(cuts: BaseExceptionGroup[BodyCut]) -> BodyCut:
    found = cuts.exceptions[0]
    return found if isinstance(found, BodyCut) else _first(found)


async def _nothing() -> Message:
    return {"type": "http.disconnect"}


class _Upload:
    """One request's `receive` and `send`, as its door sees them."""

    def __init__(self, receive: Receive, send: Send, limits: BodyLimits, limit: int) -> None:
        self._receive, self._send = receive, send
        self._limits, self._limit = limits, limit
        self._size = 0
        self._whole = False  # the body has arrived: `receive` only tells of a disconnect now
        self.answered = False  # the door began its response

    async def send(self, message: Message) -> None:
        self.answered = True
        await self._send(message)

    async def receive(self) -> Message:
        if self._whole:
            return await self._receive()
        message = await self._next()
        if message["type"] != "http.request" or not message.get("more_body", False):
            self._whole = True
        self._size += len(message.get("body", b""))
        if self._size > self._limit:
            raise too_large(self._limit)
        return message

    async def _next(self) -> Message:
        stopped = self._limits.stopped()
        arriving = asyncio.ensure_future(self._receive())
        try:
            await asyncio.wait(
                (arriving, stopped),
                timeout=self._limits.read_timeout,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            arriving.cancel()  # when it has not arrived: nobody waits for it any more
        if arriving.done() and not arriving.cancelled():
            return arriving.result()
        if stopped.done():
            raise BodyCut(503, "SHUTTING_DOWN", "the server is shutting down; send it again")
        timeout = f"{self._limits.read_timeout:g}"
        raise BodyCut(408, "BODY_TIMEOUT", f"the request body stalled for {timeout} s")
