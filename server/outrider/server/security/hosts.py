"""The Host names the HTTP port answers while authentication is off: a guard against DNS
rebinding.

With no key configured, whoever reaches the port may use it, which on a developer's loopback
server means only local programs. A web page cannot reach it across origins (the REST edge's
browser guard and the console's origin checks refuse that), but DNS rebinding makes a page's own
origin point at 127.0.0.1: the page at http://evil.example:8080 re-resolves evil.example to
127.0.0.1 and its requests arrive as same-origin ones, with `Host: evil.example:8080`. The attacker
chooses the name, never the address, so this server answers only names it knows as its own:
loopback names (`localhost`, `*.localhost`), IP literals (no rebinding can produce one), the host
of OUTRIDER_PUBLIC_URL, the address it binds to, and OUTRIDER_ALLOWED_HOSTS (`*`: any). With
authentication on, a rebound page has no key and no session cookie (cookies follow the name), so
any Host is answered.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from outrider.server.settings import Settings

ANY_HOST = "*"
HOST_NOT_ALLOWED = "HOST_NOT_ALLOWED"


class HostPolicy:
    def __init__(self, settings: Settings) -> None:
        names = {_name(h) for h in settings.allowed_hosts if h != ANY_HOST}
        names.add(_name(settings.rest_host))
        if settings.public_url:
            names.add(_name(urlsplit(settings.public_url).hostname or ""))
        self._names = frozenset(n for n in names if n)
        self._any = ANY_HOST in settings.allowed_hosts

    def allows(self, host_header: str | None) -> bool:
        """Whether a request with this Host header (None: none sent, so not a browser's) is
        answered while authentication is off."""
        if host_header is None or self._any:
            return True
        name = _name(_without_port(host_header))
        if not name:
            return False
        if _is_ip(name) or name == "localhost" or name.endswith(".localhost"):
            return True
        return name in self._names


def _without_port(host: str) -> str:
    host = host.strip()
    if host.startswith("["):  # an IPv6 literal: [::1]:8080
        return host[1 : host.find("]")] if "]" in host else ""
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _name(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True
