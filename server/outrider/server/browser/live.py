"""A browser session as the core's RunControl uses it (core/screen_watch.LiveBrowser): its screen
for viewers, and a person's input for its current tab. One per session; a restarted browser
gets a new one."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from playwright.async_api import Error as PlaywrightError

from outrider.server.browser.human_input import InputForwarder
from outrider.server.browser.screencast import Screencast
from outrider.server.browser.session import BrowserSession
from outrider.server.core.control.screen_watch import Unwatch
from outrider.v1 import browser_control_service_pb2 as bcs

_INPUT_GRACE = 0.5  # seconds after a person's last input before the agent looks again
_LOAD_WAIT_MS = 5000  # how long the agent then waits for the page's document


class LiveSession:
    def __init__(self, session: BrowserSession, redact: Callable[[str], str]) -> None:
        self._session = session
        self.screencast = Screencast(session, redact)
        self._input = InputForwarder(session)
        session.on_current = self.screencast.follow  # a new tab, a switch, a closed tab

    def watch(self, width: int, height: int, deliver: Callable[[bcs.ScreenFrame], None]) -> Unwatch:
        return self.screencast.add(width, height, deliver)

    async def forward(self, events: Sequence[bcs.InputEvent]) -> None:
        await self._input.send(events)

    async def settled(self) -> None:
        """Lets what a person's last input started (Enter that submits a form, a click on a
        link) land before the agent looks: a navigation begins a moment after the key event,
        and until it commits the old page still reads as loaded. Free when the last input was
        long enough ago or was settled already."""
        sent = self._input.last_sent
        if not sent:
            return
        await asyncio.sleep(max(0.0, sent + _INPUT_GRACE - time.monotonic()))
        self._input.last_sent = 0.0
        page = self._session.current
        if page is None or page.is_closed():
            return
        try:
            await page.wait_for_load_state("domcontentloaded", timeout=_LOAD_WAIT_MS)
        except PlaywrightError:
            pass  # still loading or gone: the observation says what it finds

    def where(self) -> str:
        current = self._session.current
        return current.url if current is not None else ""

    def tabs(self) -> tuple[int, int]:
        """(the current tab's number, how many are open), 1-based as the agent's tabs tool."""
        pages = self._session.tabs
        current = self._session.current
        return (pages.index(current) + 1 if current in pages else 0), len(pages)

    async def close(self) -> None:
        await self.screencast.close()
        await self._input.close()
