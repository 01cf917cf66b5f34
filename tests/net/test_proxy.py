"""The guarded proxy: per-run credentials, refusals with a reason, and connections made to the
address the guard checked."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from outrider.server.net.domains import DomainPolicy
from outrider.server.net.guard import NetworkGuard
from outrider.server.net.proxy import GuardedProxy


@pytest.fixture
async def proxy(sites: str) -> AsyncIterator[GuardedProxy]:
    port = int(sites.rsplit(":", 1)[1])
    guarded = GuardedProxy(NetworkGuard([f"127.0.0.1:{port}"]))
    await guarded.start()
    yield guarded
    await guarded.close()


def client(proxy: GuardedProxy, password: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(proxy=f"http://run:{password}@127.0.0.1:{proxy.port}", timeout=10)


async def test_allowed_requests_pass_and_refusals_are_reported(
    proxy: GuardedProxy, sites: str
) -> None:
    blocked: list[tuple[str, str]] = []
    _, password = proxy.register(DomainPolicy(), lambda url, why: blocked.append((url, why)))
    port = int(sites.rsplit(":", 1)[1])
    async with client(proxy, password) as http:
        page = await http.get(f"http://localhost:{port}/shop/index.html")  # resolved here, pinned
        assert page.status_code == 200 and "Fixture Shop" in page.text
        refused = await http.get("http://10.20.30.40/admin")
        assert refused.status_code == 403 and refused.headers["x-outrider-blocked"] == "1"
        hop = await http.get(
            f"{sites}/redirect?to=http://169.254.169.254/latest/", follow_redirects=True
        )
        assert hop.status_code == 403
        unknown = await http.get("http://no-such-host.invalid/")
        assert unknown.status_code == 502
    assert [url for url, _ in blocked] == [
        "http://10.20.30.40/admin",
        "http://169.254.169.254/latest/",
    ]
    assert "private address" in blocked[0][1] and "metadata" in blocked[1][1]


async def test_each_run_has_its_own_credentials_and_domain_policy(
    proxy: GuardedProxy, sites: str
) -> None:
    _, strict = proxy.register(DomainPolicy.of([], ["127.0.0.1"]), lambda url, why: None)
    _, open_ = proxy.register(DomainPolicy(), lambda url, why: None)
    async with client(proxy, strict) as http:
        assert (await http.get(f"{sites}/shop/index.html")).status_code == 403
    async with client(proxy, open_) as http:
        assert (await http.get(f"{sites}/shop/index.html")).status_code == 200
    proxy.release(open_)
    async with client(proxy, open_) as http:
        assert (await http.get(f"{sites}/shop/index.html")).status_code == 407
    async with httpx.AsyncClient(proxy=f"http://127.0.0.1:{proxy.port}", timeout=10) as anonymous:
        assert (await anonymous.get(f"{sites}/shop/index.html")).status_code == 407
