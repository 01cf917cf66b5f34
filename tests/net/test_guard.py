"""The network guard refuses non-public destinations unless allowlisted."""

from __future__ import annotations

import pytest

from outrider.server.net.guard import BlockedDestination, NetworkGuard, parse_allow_rule


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("169.254.169.254", "metadata"),
        ("10.1.2.3", "private"),
        ("192.168.0.10", "private"),
        ("172.16.5.4", "private"),
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("fe80::1", "link-local"),
        ("fd12::1", "private"),
        ("100.64.0.1", "not a public"),
        ("0.0.0.0", "unspecified"),
        ("::ffff:10.0.0.1", "private"),
        ("224.0.0.1", "multicast"),
    ],
)
def test_non_public_addresses_are_refused(address: str, why: str) -> None:
    with pytest.raises(BlockedDestination, match=why):
        NetworkGuard().check_address(address, 80)


def test_public_addresses_pass() -> None:
    NetworkGuard().check_address("93.184.216.34", 443)
    NetworkGuard().check_address("2606:4700::1111", 443)


def test_allowlist_opens_a_network_or_one_port() -> None:
    guard = NetworkGuard(["127.0.0.1:8123", "10.0.0.0/8", "[::1]:9000"])
    guard.check_address("127.0.0.1", 8123)
    guard.check_address("10.200.1.1", 5)
    guard.check_address("::1", 9000)
    with pytest.raises(BlockedDestination):
        guard.check_address("127.0.0.1", 8124)
    with pytest.raises(BlockedDestination, match="metadata"):
        guard.check_address("169.254.169.254", 80)
    assert parse_allow_rule("192.168.1.5").port is None


async def test_urls_are_checked_by_their_resolved_addresses() -> None:
    guard = NetworkGuard()
    with pytest.raises(BlockedDestination, match="loopback"):
        await guard.check_url("http://localhost:8000/")
    with pytest.raises(BlockedDestination, match="metadata"):
        await guard.check_url("http://169.254.169.254/latest/meta-data/")
    with pytest.raises(BlockedDestination, match="not an http"):
        await guard.check_url("file:///etc/passwd")
    allowed = NetworkGuard(["127.0.0.0/8"])
    assert [str(a) for a in await allowed.check_url("http://127.0.0.1:1/")] == ["127.0.0.1"]
