"""Viewport screenshots asked of Chromium directly (DevTools `Page.captureScreenshot`).
Playwright's `page.screenshot` first hides the caret in every frame and waits for fonts, extra
round trips and a style recalculation that a viewport artifact does not need: about 5 ms of a
step on the fixture pages (docs/benchmarks.md, issue 16 item 1)."""

from __future__ import annotations

import asyncio
import base64
import contextlib

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

JPEG_QUALITY = 70
_JPEG = {"format": "jpeg", "quality": JPEG_QUALITY}


class Screenshotter:
    """Keeps one DevTools session, on the page it last captured (runs look at one page at a
    time; a new page gets a new session)."""

    def __init__(self, timeout: float) -> None:
        self._timeout = timeout  # seconds, as for any other browser call of a step
        self._page: Page | None = None
        self._session: CDPSession | None = None

    async def jpeg(self, page: Page) -> bytes:
        """The viewport as JPEG; Playwright's own screenshot where the protocol call fails (a
        browser that refuses DevTools sessions). A renderer that does not answer in time (a
        page stuck in a script) raises PlaywrightTimeoutError, as Playwright's call would."""
        try:
            session = await self._session_for(page)
            ask = session.send("Page.captureScreenshot", _JPEG)
            reply = await asyncio.wait_for(ask, self._timeout)
            return base64.b64decode(reply["data"])
        except TimeoutError as error:
            raise PlaywrightTimeoutError("Page.captureScreenshot timed out") from error
        except PlaywrightError:
            await self._forget()
            return await page.screenshot(type="jpeg", quality=JPEG_QUALITY)

    async def _session_for(self, page: Page) -> CDPSession:
        if self._session is None or self._page is not page:
            await self._forget()
            self._session = await page.context.new_cdp_session(page)
            self._page = page
        return self._session

    async def _forget(self) -> None:
        """Detaches the session of the page looked at before (a closed page's is gone)."""
        session, self._page, self._session = self._session, None, None
        if session is not None:
            with contextlib.suppress(PlaywrightError):
                await session.detach()
