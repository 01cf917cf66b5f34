"""An httpx transport that lets a request through only to an address the network guard approved,
and connects to exactly that address (no second DNS lookup, so no rebinding between check and
connect). The client calls it for every request, so every redirect hop is checked too, against
the run's domain policy as well. Research fetches (fetch/) and webhook deliveries (`deliveries`)
both go through it."""

from __future__ import annotations

import httpx

from outrider.server.net.domains import DomainPolicy
from outrider.server.net.guard import NetworkGuard


class GuardedTransport(httpx.AsyncBaseTransport):
    def __init__(
        self,
        guard: NetworkGuard,
        domains: DomainPolicy | None = None,
        inner: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._guard = guard
        self._domains = domains or DomainPolicy()
        self._inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self._domains.check_url(str(request.url))  # raises BlockedDestination
        addresses = await self._guard.check_url(str(request.url))  # raises BlockedDestination
        hostname = request.url.host
        # The Host header was set from the original URL; TLS keeps the name for SNI and checks.
        request.url = request.url.copy_with(host=str(addresses[0]))
        if request.url.scheme == "https":
            request.extensions = {**request.extensions, "sni_hostname": hostname}
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()
