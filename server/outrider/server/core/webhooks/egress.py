"""What the outbox needs from outside the core to reach an endpoint: the egress guard's verdict
on a URL (when an endpoint is made, and again at every attempt) and one POST to the address it
checked, never following a redirect. The process gives it one (net/deliveries.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from outrider.server.core.webhooks.schedule import Reply


@dataclass(frozen=True)
class Outgoing:
    url: str
    headers: dict[str, str]
    body: bytes


class Egress(Protocol):
    async def refusal(self, url: str) -> str | None:
        """Why the guard refuses `url` (its scheme, or an address it resolves to), or None."""

    async def post(self, request: Outgoing) -> Reply:
        """Sends `request` to an address the guard approved (checked again now), with bounded
        timeouts and no redirect followed; never raises for what the endpoint or the network
        did (that is the Reply)."""


class NoEgress:
    """A process given no egress (unit tests of the core): every URL is refused."""

    async def refusal(self, url: str) -> str | None:
        return "this process sends no webhooks"

    async def post(self, request: Outgoing) -> Reply:
        return Reply(None, "this process sends no webhooks")
