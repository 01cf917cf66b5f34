"""The network guard: which destinations an agent may contact.

By default only globally routable addresses pass: loopback, private, link-local, carrier-grade NAT,
unique-local, multicast, reserved and cloud-metadata addresses are refused, also when a hostname
resolves to them (every resolved address is checked, so one bad record refuses the host). An
allowlist opens specific networks, optionally on one port only (the tests' fixture servers need
it). Callers must connect to an address this guard returned, not resolve again (DNS rebinding).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from outrider.server.core.errors import OutriderError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Metadata services that some clouds put on otherwise routable addresses.
_METADATA = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("169.254.170.2"),
    ipaddress.ip_address("100.100.100.200"),
    ipaddress.ip_address("fd00:ec2::254"),
}


class BlockedDestination(OutriderError):
    """A destination the guard refuses; the message says which and why."""

    default_reason = "DESTINATION_BLOCKED"


class Unresolvable(BlockedDestination):
    """A hostname with no address: unreachable rather than refused."""

    default_reason = "DESTINATION_UNRESOLVABLE"


@dataclass(frozen=True)
class AllowRule:
    network: IPNetwork
    port: int | None  # None: every port

    def matches(self, address: IPAddress, port: int) -> bool:
        return address in self.network and self.port in (None, port)


def parse_allow_rule(text: str) -> AllowRule:
    """ "127.0.0.1:8123", "[::1]:8000", "10.0.0.0/8" or "192.168.1.5"."""
    text = text.strip()
    host, port = text, None
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = int(rest[1:]) if rest.startswith(":") else None
    elif text.count(":") == 1:
        host, port_text = text.split(":")
        port = int(port_text)
    return AllowRule(ipaddress.ip_network(host, strict=False), port)


def refusal_reason(address: IPAddress) -> str | None:
    """Why `address` is refused by default, or None when it is an ordinary public address."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return refusal_reason(address.ipv4_mapped)
    if address in _METADATA:
        return "a cloud metadata address"
    checks = [
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address"),
        (address.is_multicast, "a multicast address"),
        (address.is_unspecified, "an unspecified address"),
        (address.is_private, "a private address"),
        (not address.is_global, "not a public address"),
    ]
    return next((why for refused, why in checks if refused), None)


class NetworkGuard:
    def __init__(self, allow: Iterable[str] = ()) -> None:
        self._allow = [parse_allow_rule(rule) for rule in allow if rule.strip()]

    def check_address(self, address: str | IPAddress, port: int) -> None:
        ip = ipaddress.ip_address(address) if isinstance(address, str) else address
        if any(rule.matches(ip, port) for rule in self._allow):
            return
        why = refusal_reason(ip)
        if why is not None:
            raise BlockedDestination(f"{_show(ip, port)} is {why}; the network guard refuses it")

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        """The addresses of `host`, all checked; raises BlockedDestination if any is refused."""
        try:
            literal = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            addresses = await _lookup(host, port)
        else:
            addresses = [literal]
        for address in addresses:
            self.check_address(address, port)
        return addresses

    async def check_url(self, url: str) -> list[IPAddress]:
        """Checks an http(s) URL's destination; returns the addresses to connect to."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise BlockedDestination(f"{url!r} is not an http or https URL")
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return await self.resolve(parts.hostname, port)


async def _lookup(host: str, port: int) -> list[IPAddress]:
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise Unresolvable(f"{host} does not resolve ({error.strerror})") from None
    return list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in infos))


def _show(address: IPAddress, port: int) -> str:
    return f"[{address}]:{port}" if address.version == 6 else f"{address}:{port}"
