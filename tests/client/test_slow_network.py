"""A connection whose handshake takes a while (a loaded server, a long round trip) is waited for:
the client's quick reconnect backoff must not shorten gRPC's connect timeout with it."""

from __future__ import annotations

from outrider.client import AsyncClient
from tests.client.proxy import CuttableProxy
from tests.support.harness import Harness


async def test_a_handshake_slower_than_the_reconnect_backoff_succeeds(harness: Harness) -> None:
    proxy = CuttableProxy(harness.server.port, delay=2.5)  # beyond the 2 s maximum backoff
    await proxy.start()
    try:
        async with AsyncClient(f"127.0.0.1:{proxy.port}") as client:
            assert (await client.list_runs()).items == []
        assert proxy.connections == 1  # one patient attempt, not a string of aborted ones
    finally:
        await proxy.stop()
