"""What the live view shows around the screen, as a stream of small JSON messages (SSE) that
live_view.js reads: the tab shown (its URL, its title, its number and how many are open) each
time it changes, and who has control and until when each time that changes (renewals and a
driver's page closing included), for every viewer.

It is a watch of the run's screen like the image's (RunManager.browsers.watch, relayed to the
replica executing the run), whose frames are read for their metadata and dropped: the page
opens it and lets it go together with the image, so a screen nobody looks at costs nothing.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import StreamingResponse

from outrider.server.console_edge.auth import session_of
from outrider.server.console_edge.run_page import run_id_of
from outrider.server.core.control.browsers import VIEWPORT
from outrider.server.core.runs.manager import RunManager
from outrider.v1 import browser_control_service_pb2 as bcs

_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
_STATES = {
    bcs.CONTROL_STATE_AGENT: "agent",
    bcs.CONTROL_STATE_REQUESTED: "requested",
    bcs.CONTROL_STATE_PERSON: "person",
    bcs.CONTROL_STATE_NO_BROWSER: "no-browser",
}


class ScreenInfo:
    def __init__(self, runs: RunManager) -> None:
        self._runs = runs

    async def stream(self, request: Request) -> StreamingResponse:
        principal = session_of(request).principal
        watch = await self._runs.browsers.watch(run_id_of(request), VIEWPORT, principal)
        return StreamingResponse(_messages(watch), media_type="text/event-stream", headers=_HEADERS)


async def _messages(watch: AsyncIterator[bcs.WatchScreenResponse]) -> AsyncIterator[bytes]:
    yield b"retry: 2000\n\n"
    shown: dict[str, Any] = {}
    async for message in watch:
        if message.HasField("control"):
            yield _message("control", control_of(message.control))
            continue
        page = page_of(message.frame)
        if page != shown:
            shown = page
            yield _message("page", page)


def page_of(frame: bcs.ScreenFrame) -> dict[str, Any]:
    return {"url": frame.url, "title": frame.title, "tab": frame.tab, "tabs": frame.tabs}


def control_of(status: bcs.ControlStatus) -> dict[str, Any]:
    expires = status.expire_time.ToJsonString() if status.HasField("expire_time") else ""
    return {
        "state": _STATES.get(status.state, "agent"),
        "driver": status.driver,
        "expires": expires,
        "reason": status.reason,
    }


def _message(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()
