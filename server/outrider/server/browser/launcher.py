"""Where browsers come from: one shared local Chromium, or a list of CDP endpoints tried in order.

The local Chromium is launched on first use and relaunched when it has died. CDP endpoints are
connected per run; a failing endpoint is reported by its error's class name only (messages can
carry endpoint URLs and credentials).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from playwright.async_api import Browser, Playwright, async_playwright

from outrider.server.browser import facts_feed
from outrider.server.chromium import CHROMIUM_FLAGS
from outrider.server.net.guard import NetworkGuard
from outrider.server.net.proxy import GuardedProxy
from outrider.server.settings.browser import BrowserSettings


@dataclass(frozen=True)
class Connected:
    browser: Browser
    endpoint_index: int  # 1-based
    total: int
    owned: bool  # True when the run must close it (a CDP connection), False for the shared one
    proxy: GuardedProxy | None  # the guarded proxy a local browser's contexts must use


CycleReport = Callable[[int, str, int], None]  # (attempt, error class name, total)


class NoBrowserAvailable(Exception):
    """Every configured endpoint failed."""


class BrowserLauncher:
    def __init__(self, chromium_path: str, settings: BrowserSettings, guard: NetworkGuard) -> None:
        self._chromium_path = chromium_path
        self._settings = settings
        self._guard = guard
        self._proxy: GuardedProxy | None = None
        self._playwright: Playwright | None = None
        self._local: Browser | None = None
        self._lock = asyncio.Lock()

    @property
    def endpoint_count(self) -> int:
        return len(self._settings.cdp_endpoints) or 1

    async def connect(self, on_cycle: CycleReport, start_at: int = 0) -> Connected:
        """A browser for one run, trying endpoints from `start_at` (0-based) onwards."""
        async with self._lock:
            playwright = await self._start()
            if not self._settings.cdp_endpoints:
                browser = await self._local_browser(playwright)
                return Connected(browser, 1, 1, owned=False, proxy=await self._local_proxy())
            return await self._connect_cdp(playwright, on_cycle, start_at)

    async def _start(self) -> Playwright:
        if self._playwright is None:
            playwright = await async_playwright().start()
            await facts_feed.register(playwright)  # before any context: each gets the engine
            self._playwright = playwright
        return self._playwright

    async def _local_proxy(self) -> GuardedProxy:
        if self._proxy is None:
            self._proxy = GuardedProxy(self._guard)
            await self._proxy.start()
        return self._proxy

    async def _local_browser(self, playwright: Playwright) -> Browser:
        if self._local is None or not self._local.is_connected():
            self._local = await playwright.chromium.launch(
                executable_path=self._chromium_path, args=list(CHROMIUM_FLAGS), headless=True
            )
        return self._local

    async def _connect_cdp(
        self, playwright: Playwright, on_cycle: CycleReport, start_at: int
    ) -> Connected:
        endpoints = self._settings.cdp_endpoints
        order = [
            *range(start_at, len(endpoints)),
            *range(0, start_at),
        ]  # next ones first, then wrap
        for index in order:
            try:
                browser = await playwright.chromium.connect_over_cdp(
                    endpoints[index], timeout=self._settings.navigation_timeout * 1000
                )
            except Exception as error:  # any failure moves on to the next endpoint
                on_cycle(index + 1, type(error).__name__, len(endpoints))
                continue
            # A remote browser cannot reach our loopback proxy; it is guarded by URL checks only.
            return Connected(browser, index + 1, len(endpoints), owned=True, proxy=None)
        raise NoBrowserAvailable(f"none of the {len(endpoints)} CDP endpoints could be reached")

    async def close(self) -> None:
        """Closes the shared Chromium and the Playwright driver; no process outlives this."""
        async with self._lock:
            if self._local is not None:
                await self._local.close()
                self._local = None
            if self._playwright is not None:
                await self._playwright.stop()
                self._playwright = None
            if self._proxy is not None:
                await self._proxy.close()
                self._proxy = None
