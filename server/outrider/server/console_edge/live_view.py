"""The run page's live view of the browser and its take-over controls (issue 24, item 5).

The screen is one <img> whose source is a stream of JPEG frames (multipart/x-mixed-replace):
no script draws frames, the CSP's `img-src 'self'` holds, and the stream (so the screencast
behind it) lasts exactly as long as a page shows it. The controls are a fragment the live stream
renders again on every takeover event (live_parts.py); Take over, Hand back and Decline are
forms; the person's mouse, keys and text reach the page through `input`, posted as JSON by
live_view.js. Every call goes through the core (RunManager.browsers), which relays it to the
replica executing the run.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from google.protobuf import json_format
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse

from outrider.server.console_edge.auth import CSRF_FIELD, ConsoleAuth, session_of
from outrider.server.console_edge.control_view import control_view
from outrider.server.console_edge.errors import is_htmx
from outrider.server.console_edge.forms import Form, read_form
from outrider.server.console_edge.run_page import run_id_of
from outrider.server.console_edge.templating import Pages, base_of
from outrider.server.core.error_statuses import http_status
from outrider.server.core.errors import InvalidArgument, OutriderError
from outrider.server.core.names import parse_interaction_name
from outrider.server.core.principals import Principal
from outrider.server.core.runs.manager import RunManager
from outrider.v1 import browser_control_service_pb2 as bcs

BOUNDARY = "frame"
REPEAT_AFTER = 0.08  # seconds without a newer frame after which the last one is sent again
MAX_INPUT_BYTES = 1024 * 1024  # 200 events of text, the most one call takes
_STREAM_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


class LiveView:
    def __init__(self, runs: RunManager, pages: Pages, auth: ConsoleAuth) -> None:
        self._runs = runs
        self._pages = pages
        self._auth = auth

    async def screen(self, request: Request) -> Response:
        """The run's screen as JPEG frames scaled to fit ?w= by ?h= (the viewport's size by
        default), until the run ends or the page goes away."""
        principal = session_of(request).principal
        size = (_pixels(request, "w"), _pixels(request, "h"))
        watch = await self._runs.browsers.watch(run_id_of(request), size, principal)
        media_type = f"multipart/x-mixed-replace; boundary={BOUNDARY}"
        return StreamingResponse(_frames(watch), media_type=media_type, headers=_STREAM_HEADERS)

    async def take_over(self, request: Request) -> Response:
        form, run_id, principal = await self._change(request)
        await self._runs.browsers.take_over(run_id, form.get("force") == "true", principal)
        return self._controls(request, run_id)

    async def hand_back(self, request: Request) -> Response:
        form, run_id, principal = await self._change(request)
        takeover = _takeover_id(form.get("takeover"))
        note = form.get("note").strip()
        await self._runs.browsers.hand_back(run_id, takeover, note, principal)
        return self._controls(request, run_id)

    async def decline(self, request: Request) -> Response:
        form, run_id, principal = await self._change(request)
        takeover = _takeover_id(form.get("takeover"))
        reason = form.get("reason").strip()
        await self._runs.browsers.decline(run_id, takeover, reason, principal)
        return self._controls(request, run_id)

    async def input(self, request: Request) -> Response:
        """Mouse, keys, wheel, text and navigation from live_view.js (JSON, the CSRF token in
        its header); errors as JSON, which the script shows beside the screen."""
        session = session_of(request)
        try:
            self._auth.check_change(request, session, None)
            events = await _events(request)
            expires = await self._runs.browsers.forward(
                run_id_of(request), events, session.principal
            )
        except OutriderError as error:
            body = {"error": {"reason": error.reason, "message": error.message}}
            return JSONResponse(body, http_status(error))
        return JSONResponse({"expireTime": expires.ToJsonString()})

    async def _change(self, request: Request) -> tuple[Form, str, Principal]:
        """A change's form, run and principal, once its origin and CSRF token are checked."""
        session = session_of(request)
        form = await read_form(request)
        self._auth.check_change(request, session, form.get(CSRF_FIELD))
        return form, run_id_of(request), session.principal

    def _controls(self, request: Request, run_id: str) -> Response:
        if not is_htmx(request):
            return RedirectResponse(f"{base_of(request)}/runs/{run_id}", 303)
        session = session_of(request)
        run = self._runs.get(run_id, session.principal)
        view = control_view(self._runs, run, session.principal)
        csrf = self._auth.signer.csrf_token(session)
        return self._pages.page(request, "live_controls.html", control=view, csrf=csrf)


async def _frames(watch: AsyncIterator[bcs.WatchScreenResponse]) -> AsyncIterator[bytes]:
    """The frames as parts of one response. A browser shows a part only once the next one has
    arrived, so a frame that no other follows soon (a still page) is sent a second time."""
    latest = _Latest()
    pulling = asyncio.create_task(latest.pull(watch))
    try:
        yield f"--{BOUNDARY}\r\n".encode()
        while (data := await latest.next()) is not None:
            yield _part(data)
            if await latest.quiet(REPEAT_AFTER):
                yield _part(data)
    finally:
        pulling.cancel()


def _part(data: bytes) -> bytes:
    head = f"Content-Type: image/jpeg\r\nContent-Length: {len(data)}\r\n\r\n"
    return head.encode() + data + f"\r\n--{BOUNDARY}\r\n".encode()


class _Latest:
    """The newest frame of a watch, taken by a writer that may be slower than the frames."""

    def __init__(self) -> None:
        self._frame: bytes | None = None
        self._ended = False
        self._arrived = asyncio.Event()

    async def pull(self, watch: AsyncIterator[bcs.WatchScreenResponse]) -> None:
        try:
            async for message in watch:
                if message.HasField("frame"):
                    self._frame = message.frame.data
                    self._arrived.set()
        finally:
            self._ended = True
            self._arrived.set()

    async def next(self) -> bytes | None:
        """The newest frame not taken yet; None once the watch has ended."""
        while self._frame is None:
            if self._ended:
                return None
            self._arrived.clear()
            await self._arrived.wait()
        frame, self._frame = self._frame, None
        return frame

    async def quiet(self, seconds: float) -> bool:
        """True when no frame came within `seconds`."""
        if self._frame is not None or self._ended:
            return False
        self._arrived.clear()
        try:
            await asyncio.wait_for(self._arrived.wait(), seconds)
        except TimeoutError:
            return True
        return False


async def _events(request: Request) -> list[bcs.InputEvent]:
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise InvalidArgument.single("body", "must be JSON (application/json)")
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_INPUT_BYTES:
            raise InvalidArgument.single("body", f"must be at most {MAX_INPUT_BYTES:,} bytes")
    parsed = bcs.ForwardInputRequest()
    try:
        json_format.Parse(bytes(raw), parsed)
    except json_format.ParseError as error:
        raise InvalidArgument.single("body", f"is not a list of input events: {error}") from None
    return list(parsed.events)


def _pixels(request: Request, name: str) -> int:
    text = request.query_params.get(name, "0")
    if not text.isdigit() or len(text) > 5:
        raise InvalidArgument.single(name, "must be a number of pixels")
    return int(text)


def _takeover_id(name: str) -> str:
    return parse_interaction_name(name, "takeover") if name else ""
