"""Webhook and A2A push deliveries leave the process here: through the network guard (public
addresses only, unless the operator allow-listed a network in OUTRIDER_WEBHOOKS_ALLOW), to the
address it checked (no second lookup), never following a redirect, within one bound on the whole
attempt. The core's dispatcher uses it as its `Egress`."""

from __future__ import annotations

import asyncio
import time
from email.utils import parsedate_to_datetime

import httpx

from outrider.server.core.webhooks.egress import Outgoing
from outrider.server.core.webhooks.schedule import Reply
from outrider.server.net.guard import BlockedDestination, NetworkGuard, Unresolvable
from outrider.server.net.transport import GuardedTransport
from outrider.server.settings.webhooks import WebhookSettings


class GuardedDeliveries:
    def __init__(self, settings: WebhookSettings) -> None:
        self._guard = NetworkGuard(settings.allow)
        self._timeout = settings.timeout
        self._client = httpx.AsyncClient(
            transport=GuardedTransport(self._guard),
            follow_redirects=False,
            timeout=httpx.Timeout(settings.timeout),
            limits=httpx.Limits(max_connections=4 * settings.concurrency),
            trust_env=False,  # no proxy from the environment: the guard decides where it goes
        )

    async def refusal(self, url: str) -> str | None:
        """A name that does not resolve (yet) is let through: it may resolve by the time a
        delivery is due, and every attempt is checked again then."""
        try:
            await self._guard.check_url(url)
        except Unresolvable:
            return None
        except BlockedDestination as error:
            return error.message
        return None

    async def post(self, request: Outgoing) -> Reply:
        started = time.monotonic()
        try:
            async with asyncio.timeout(self._timeout):
                status, retry_after = await self._send(request)
        except BlockedDestination as error:
            return Reply(None, f"refused by the egress guard: {error.message}", _since(started))
        except TimeoutError:
            return Reply(None, f"no answer within {self._timeout:g} s", _since(started))
        except httpx.HTTPError as error:
            return Reply(None, f"{type(error).__name__}: {error}"[:300], _since(started))
        return Reply(status, _error_of(status), _since(started), retry_after)

    async def _send(self, request: Outgoing) -> tuple[int, float | None]:
        """The status and Retry-After; the body of the answer is not read."""
        async with self._client.stream(
            "POST", request.url, content=request.body, headers=request.headers
        ) as response:
            return response.status_code, retry_after(response.headers.get("retry-after"))

    async def aclose(self) -> None:
        await self._client.aclose()


def retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date), None without one."""
    if not value:
        return None
    if value.strip().isdigit():
        return float(value.strip())
    try:
        return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError):
        return None


def _error_of(status: int) -> str:
    if 200 <= status < 300:
        return ""
    if 300 <= status < 400:
        return f"answered {status}: a redirect, which deliveries never follow"
    return f"answered {status}"


def _since(started: float) -> float:
    return time.monotonic() - started
