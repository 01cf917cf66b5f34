"""The live view of a run's browser: a DevTools screencast (`Page.startScreencast`) of its
current tab, running only while someone watches (the first viewer starts it, the last one
stops it: nothing is captured for nobody), following the run to another tab. Frames go to
the viewers as they come and are never stored; a viewer that falls behind gets the newest
(core/control/screen_watch.py), so the view stays live.

Chromium sends the next frame once the last one is acknowledged; each is acknowledged on
arrival. Viewers of different sizes share one screencast at the largest size they asked for.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import logging
from collections.abc import Callable
from typing import Any

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from outrider.server.browser.session import BrowserSession
from outrider.server.core import clock
from outrider.v1 import browser_control_service_pb2 as bcs

log = logging.getLogger(__name__)
JPEG_QUALITY = 60  # a live view, not an artifact: a third smaller than quality 70 at this size
Deliver = Callable[[bcs.ScreenFrame], None]
_RETRY_AFTER = 0.25  # seconds before a refused screencast start is tried again
_RETRIES = 40  # about ten seconds of a tab between documents
TITLE_EVERY = 0.5  # seconds between two reads of the shown tab's title


class Screencast:
    def __init__(self, session: BrowserSession, redact: Callable[[str], str]) -> None:
        self._session = session
        self._redact = redact
        self._viewers: dict[int, tuple[int, int, Deliver]] = {}
        self._tokens = itertools.count()
        self._page: Page | None = None
        self._size = (0, 0)
        self._cdp: CDPSession | None = None
        self._lock = asyncio.Lock()
        self._syncing: set[asyncio.Task[None]] = set()
        self._last: bcs.ScreenFrame | None = None
        self._failures = 0  # screencast starts refused in a row (see _retry_soon)
        self._title = ""  # of the tab shown, read again at most every TITLE_EVERY seconds
        self._title_read = 0.0

    @property
    def running(self) -> bool:
        return self._cdp is not None

    def add(self, width: int, height: int, deliver: Deliver) -> Callable[[], None]:
        """Sends `deliver` the frames from now on (the newest one at once, if there is one)
        until the returned function is called."""
        token = next(self._tokens)
        self._viewers[token] = (width, height, deliver)
        if self._last is not None and self._page is self._session.current:
            deliver(self._last)
        self.follow()

        def remove() -> None:
            if self._viewers.pop(token, None) is not None:
                self.follow()

        return remove

    def follow(self) -> None:
        """Brings the screencast in line with the viewers and the current tab (soon)."""
        task = asyncio.get_running_loop().create_task(self._sync())
        self._syncing.add(task)
        task.add_done_callback(self._syncing.discard)

    async def _sync(self) -> None:
        async with self._lock:
            page = self._session.current if self._viewers else None
            size = (
                (
                    max(w for w, _, _ in self._viewers.values()),
                    max(h for _, h, _ in self._viewers.values()),
                )
                if self._viewers
                else (0, 0)
            )
            if (page, size) == (self._page, self._size) and (page is None) == (self._cdp is None):
                return
            await self._stop()
            if page is not None and not page.is_closed():
                await self._start(page, size)

    async def _start(self, page: Page, size: tuple[int, int]) -> None:
        try:
            cdp = await page.context.new_cdp_session(page)
            cdp.on("Page.screencastFrame", lambda frame: self._on_frame(cdp, page, frame))
            # Current before it starts: the first frame may come before the call returns.
            self._cdp, self._page, self._size = cdp, page, size
            page.on("load", self._loaded)  # a title set as the page loads: no frame may follow
            await cdp.send(
                "Page.startScreencast",
                {
                    "format": "jpeg",
                    "quality": JPEG_QUALITY,
                    "maxWidth": size[0],
                    "maxHeight": size[1],
                },
            )
        except PlaywrightError as error:  # the tab closed, or was between two documents
            log.debug("screencast not started: %s", error.message)
            self._cdp, self._page, self._size = None, None, (0, 0)
            self._retry_soon(page)
            return
        self._failures = 0

    def _retry_soon(self, page: Page) -> None:
        """A tab still open that refused the screencast was between two documents (DevTools:
        "not attached to an active page"): tried again shortly, a bounded number of times, as
        no other change may come to start it while a viewer waits."""
        self._failures += 1
        if not page.is_closed() and self._failures <= _RETRIES:
            asyncio.get_running_loop().call_later(_RETRY_AFTER, self.follow)

    async def _stop(self) -> None:
        if self._page is not None:
            self._page.remove_listener("load", self._loaded)
        cdp, self._cdp, self._page, self._size = self._cdp, None, None, (0, 0)
        self._last, self._title, self._title_read = None, "", 0.0
        if cdp is not None:
            with contextlib.suppress(PlaywrightError):
                await cdp.send("Page.stopScreencast")
                await cdp.detach()

    def _on_frame(self, cdp: CDPSession, page: Page, frame: dict[str, Any]) -> None:
        ack = cdp.send("Page.screencastFrameAck", {"sessionId": frame["sessionId"]})
        self.follow_task(ack)
        if cdp is not self._cdp:
            return
        self._read_title(page)
        made = _frame(frame, self._redact(page.url))
        made.title = self._title
        tabs = self._session.tabs
        made.tab, made.tabs = (tabs.index(page) + 1 if page in tabs else 0), len(tabs)
        self._send(made)

    def _loaded(self, page: Page) -> None:
        self._read_title(page, at_once=True)

    def _read_title(self, page: Page, at_once: bool = False) -> None:
        """Reads the tab's title in the background (a page may change it without loading), for
        the frames after this one; a new title goes to the viewers at once, with the newest
        frame (a still page sends no other)."""
        now = asyncio.get_running_loop().time()
        if now - self._title_read < TITLE_EVERY and not at_once:
            return
        self._title_read = now

        async def read() -> None:
            title = self._redact(await page.title())
            if page is not self._page or title == self._title:
                return
            self._title = title
            if self._last is not None:
                again = bcs.ScreenFrame()
                again.CopyFrom(self._last)
                again.title = title
                self._send(again)

        self.follow_task(read())

    def _send(self, frame: bcs.ScreenFrame) -> None:
        self._last = frame
        for _, _, deliver in list(self._viewers.values()):
            deliver(frame)

    def follow_task(self, call: Any) -> None:
        """Runs a DevTools call in the background; a closed tab's failure is expected."""

        async def quietly() -> None:
            with contextlib.suppress(PlaywrightError):
                await call

        task = asyncio.get_running_loop().create_task(quietly())
        self._syncing.add(task)
        task.add_done_callback(self._syncing.discard)

    async def close(self) -> None:
        self._viewers.clear()
        async with self._lock:
            await self._stop()


def _frame(frame: dict[str, Any], url: str) -> bcs.ScreenFrame:
    meta = frame.get("metadata", {})
    made = bcs.ScreenFrame(
        data=base64.b64decode(frame["data"]),
        media_type="image/jpeg",
        viewport_width=round(meta.get("deviceWidth", 0)),
        viewport_height=round(meta.get("deviceHeight", 0)),
        scroll_x=meta.get("scrollOffsetX", 0.0),
        scroll_y=meta.get("scrollOffsetY", 0.0),
        url=url,
    )
    if "timestamp" in meta:
        clock.set_timestamp(made.capture_time, int(meta["timestamp"] * 1_000_000))
    return made
