"""The JavaScript fallback: render a page in headless Chromium (Debian's, via Playwright) when its
text only appears after scripts run.

The run's Chromium sends everything through its own guarded proxy (net/proxy.py), loopback
included (`<-loopback>`): the proxy resolves and checks every connection, so WebSockets, redirect
hops, frames and `fetch()`es meet the network guard and the run's domain policy, and Chromium never
resolves a hostname itself (WebRTC may only use the proxy: see chromium.py). URL-level
request routing stays as a first check, which refuses the obvious at once.
"""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import urlsplit

from playwright.async_api import Browser, Playwright, ProxySettings, Route, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeout

from outrider.server.chromium import CHROMIUM_FLAGS
from outrider.server.net.domains import DomainPolicy
from outrider.server.net.guard import BlockedDestination, NetworkGuard
from outrider.server.net.proxy import GuardedProxy

log = logging.getLogger(__name__)


class Renderer:
    """Starts its proxy and Chromium on first use; `aclose()` stops both. One per run: owning
    its proxy (rather than sharing the browser agent's launcher) keeps the research agent free of
    shared state, and nothing of a run outlives it."""

    def __init__(
        self, chromium_path: Path, guard: NetworkGuard, domains: DomainPolicy, user_agent: str
    ) -> None:
        self._chromium_path = chromium_path
        self._guard = guard
        self._domains = domains
        self._user_agent = user_agent
        self._proxy: GuardedProxy | None = None
        self._proxy_settings: ProxySettings | None = None
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    async def render(self, url: str, limit: float) -> str:
        """The page's HTML after scripts ran (network idle or `limit` seconds). Raises
        playwright's Error when the browser cannot render it."""
        browser = await self._ensure_browser()
        context = await browser.new_context(user_agent=self._user_agent, service_workers="block")
        try:
            await context.route("**/*", self._check_route)
            page = await context.new_page()
            try:
                await page.goto(url, wait_until="networkidle", timeout=limit * 1000)
            except PlaywrightTimeout:
                pass  # a page that never falls quiet (polling, streaming) is read as it stands
            return await page.content()
        finally:
            await context.close()

    async def _check_route(self, route: Route) -> None:
        try:
            self._domains.check_url(route.request.url)
            await self._guard.check_url(route.request.url)
        except BlockedDestination:
            await route.abort("blockedbyclient")
            return
        await route.continue_()

    async def _ensure_browser(self) -> Browser:
        """Each part starts once, so a failed launch leaves nothing behind that aclose misses."""
        if self._proxy is None:
            self._proxy = GuardedProxy(self._guard)
            await self._proxy.start()
            self._proxy_settings = self._register(self._proxy)
        if self._playwright is None:
            self._playwright = await async_playwright().start()
        if self._browser is None or not self._browser.is_connected():  # relaunched if it died
            self._browser = await self._playwright.chromium.launch(
                executable_path=str(self._chromium_path),
                args=list(CHROMIUM_FLAGS),
                headless=True,
                proxy=self._proxy_settings,
            )
        return self._browser

    def _register(self, proxy: GuardedProxy) -> ProxySettings:
        """This run's credentials, which select its domain policy in the proxy."""
        username, password = proxy.register(self._domains, _log_refusal)
        # "<-loopback>" sends loopback too through the proxy, which Chromium otherwise bypasses.
        return {
            "server": f"http://127.0.0.1:{proxy.port}",
            "username": username,
            "password": password,
            "bypass": "<-loopback>",
        }

    async def aclose(self) -> None:
        if self._browser is not None:
            await self._browser.close()
            self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None
        if self._proxy is not None:
            await self._proxy.close()
            self._proxy = None


def _log_refusal(url: str, why: str) -> None:
    """Logs the host only: a refused URL's path and query can carry a page's secrets."""
    host = urlsplit(url).hostname or "?"
    log.info("network guard refused a rendered page's request to %s: %s", host, why)
