"""Per-run domain policy: an allowlist (when given) and a blocklist, each entry covering the
domain and its subdomains. Checked before addresses, on hostnames as the caller wrote them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from outrider.server.net.guard import BlockedDestination


def _clean(domains: Sequence[str]) -> tuple[str, ...]:
    return tuple(d.strip().lower().removeprefix("*.") for d in domains if d.strip())


def _covers(domain: str, host: str) -> bool:
    return host == domain or host.endswith("." + domain)


@dataclass(frozen=True)
class DomainPolicy:
    allowed: tuple[str, ...] = ()
    blocked: tuple[str, ...] = ()

    @classmethod
    def of(cls, allowed: Sequence[str], blocked: Sequence[str]) -> DomainPolicy:
        return cls(_clean(allowed), _clean(blocked))

    def check_url(self, url: str) -> None:
        host = (urlsplit(url).hostname or "").lower()
        if any(_covers(domain, host) for domain in self.blocked):
            raise BlockedDestination(f"{host} is in this run's blocked_domains")
        if self.allowed and not any(_covers(domain, host) for domain in self.allowed):
            raise BlockedDestination(f"{host} is not in this run's allowed_domains")
