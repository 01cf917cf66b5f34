"""Viewport screenshots asked of Chromium directly (DevTools `Page.captureScreenshot`).
Playwright's `page.screenshot` first hides the caret in every frame and waits for fonts, extra
round trips and a style recalculation that a viewport artifact does not need: about 5 ms of a
step on the fixture pages (docs/benchmarks.md, issue 16 item 1)."""

from __future__ import annotations

import base64

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

JPEG_QUALITY = 70


class Screenshotter:
    """Keeps one DevTools session, on the page it last captured (runs look at one page at a
    time; a new page gets a new session)."""

    def __init__(self) -> None:
        self._page: Page | None = None
        self._session: CDPSession | None = None

    async def jpeg(self, page: Page) -> bytes:
        """The viewport as JPEG; Playwright's own screenshot where the protocol call fails (a
        browser that refuses DevTools sessions)."""
        try:
            session = await self._session_for(page)
            reply = await session.send(
                "Page.captureScreenshot", {"format": "jpeg", "quality": JPEG_QUALITY}
            )
            return base64.b64decode(reply["data"])
        except PlaywrightError:
            self._page = self._session = None
            return await page.screenshot(type="jpeg", quality=JPEG_QUALITY)

    async def _session_for(self, page: Page) -> CDPSession:
        if self._session is None or self._page is not page:
            self._session = await page.context.new_cdp_session(page)
            self._page = page
        return self._session
