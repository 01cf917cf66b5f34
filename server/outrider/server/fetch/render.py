"""The JavaScript fallback: render a page in headless Chromium (Debian's, via Playwright) when its
text only appears after scripts run. Every request the page makes passes the network guard."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Browser, Playwright, Route, async_playwright

from outrider.server.chromium import CHROMIUM_FLAGS
from outrider.server.net.domains import DomainPolicy
from outrider.server.net.guard import BlockedDestination, NetworkGuard


class Renderer:
    """Starts Chromium on first use; `aclose()` stops it. One per run."""

    def __init__(
        self, chromium_path: Path, guard: NetworkGuard, domains: DomainPolicy, user_agent: str
    ) -> None:
        self._chromium_path = chromium_path
        self._guard = guard
        self._domains = domains
        self._user_agent = user_agent
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    async def render(self, url: str, limit: float) -> str:
        """The page's HTML after scripts ran (network idle or `limit` seconds)."""
        browser = await self._ensure_browser()
        context = await browser.new_context(user_agent=self._user_agent, service_workers="block")
        try:
            await context.route("**/*", self._check_route)
            page = await context.new_page()
            await page.goto(url, wait_until="networkidle", timeout=limit * 1000)
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
        if self._browser is None:
            self._playwright = await async_playwright().start()
            self._browser = await self._playwright.chromium.launch(
                executable_path=str(self._chromium_path), args=list(CHROMIUM_FLAGS), headless=True
            )
        return self._browser

    async def aclose(self) -> None:
        if self._browser is not None:
            await self._browser.close()
            self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None
