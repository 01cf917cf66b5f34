"""URL-level checks of everything a browser context requests: the run's domain policy and the
network guard on each request's first URL, so refusals are immediate and clearly explained.

With a local Chromium every request also goes through the guarded proxy (net/proxy.py), which
checks and pins each connection, redirect hops included. A remote (CDP) browser cannot use that
proxy, so for it the redirect chain of GET navigations is walked here first (hop by hop, without
following) and each target checked. Known limits of that remote-browser fallback: a server that
redirects differently the second time, redirects of POST navigations and of subresources are
checked only at their first URL, and the remote browser resolves hostnames itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from urllib.parse import urljoin

from playwright.async_api import Route

from outrider.server.net.domains import DomainPolicy
from outrider.server.net.guard import BlockedDestination, NetworkGuard

_UNGUARDED = ("data:", "blob:", "about:", "chrome-error:")
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_MAX_HOPS = 10

# Asked before a request the guard lets through is sent (method, URL, resource type): None lets
# it go, a string is why it may not (the side-effect journal could not record it first; the
# callee tells the model).
BeforeSending = Callable[[str, str, str], Awaitable[str | None]]


async def _send_anything(method: str, url: str, resource_type: str) -> str | None:
    return None


class RequestGuard:
    def __init__(
        self,
        guard: NetworkGuard,
        domains: DomainPolicy,
        on_block: Callable[[str, str], None],
        walk_redirects: bool,
        before_sending: BeforeSending = _send_anything,
    ) -> None:
        self._guard = guard
        self._domains = domains
        self._on_block = on_block
        self._walk_redirects = walk_redirects
        self._before_sending = before_sending

    async def handle(self, route: Route) -> None:
        request = route.request
        if request.url.startswith(_UNGUARDED):
            await route.continue_()
            return
        try:
            self._domains.check_url(request.url)
            await self._guard.check_url(request.url)
            if self._walk_redirects and request.is_navigation_request() and request.method == "GET":
                await self._check_redirects(route)
        except BlockedDestination as refusal:
            self._on_block(request.url, refusal.message)
            await route.abort("blockedbyclient")
            return
        held = await self._before_sending(request.method, request.url, request.resource_type)
        if held is not None:
            await route.abort("blockedbyclient")
            return
        await route.continue_()

    async def _check_redirects(self, route: Route) -> None:
        url = route.request.url
        for _ in range(_MAX_HOPS):
            try:
                response = await route.fetch(url=url, max_redirects=0)
            except Exception:  # unreachable and the like: the browser will report it
                return
            location = response.headers.get("location")
            status = response.status
            await response.dispose()
            if status not in _REDIRECTS or not location:
                return
            url = urljoin(url, location)
            self._domains.check_url(url)
            await self._guard.check_url(url)
