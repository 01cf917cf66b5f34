"""DNS rebinding against /mcp where it matters most: a server without keys on loopback. A page on
evil.example whose name now resolves to 127.0.0.1 sends its own Host and Origin; neither gets
through, on any method, while the server's own names and origins do. Then the guard's rules
for OUTRIDER_MCP_ALLOWED_HOSTS, a server bound beyond loopback and OUTRIDER_CORS_ORIGINS."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from starlette.types import Receive, Scope, Send

from outrider.server.mcp_edge.guard import HostOriginGuard
from tests.mcp.test_access import ACCEPT, INITIALIZE
from tests.rest.support import RestCase, start_rest
from tests.support.harness import settings_for_tests

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def keyless(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[RestCase]:
    case = await start_rest(tmp_path_factory.mktemp("keyless") / "data")
    try:
        yield case
    finally:
        await case.stop()


async def status(case: RestCase, method: str, headers: dict[str, str]) -> int:
    body: Any = INITIALIZE if method == "POST" else None
    async with httpx.AsyncClient(timeout=30) as http:
        sent = await http.request(method, f"{case.origin}/mcp", json=body, headers=ACCEPT | headers)
    return sent.status_code


async def test_a_rebound_page_gets_nothing_from_a_keyless_server(keyless: RestCase) -> None:
    port = keyless.rest.port
    evil_host, evil_page = {"Host": f"evil.example:{port}"}, {"Origin": "http://evil.example"}
    refused = [
        await status(keyless, method, headers)
        for method in ("POST", "GET", "DELETE")
        for headers in (evil_host, evil_page, evil_host | evil_page, {"Origin": "null"})
    ]
    assert set(refused) <= {403, 421} and len(refused) == 12, refused
    own = [
        await status(keyless, "POST", headers)
        for headers in (
            {},
            {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"},
            {"Origin": f"http://127.0.0.1:{port}"},
        )
    ]
    assert own == [200, 200, 200]


async def _ok(scope: Scope, receive: Receive, send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"served"})


async def guarded(tmp_path: Path, headers: dict[str, str], **settings: Any) -> int:
    """The status the guard gives a request with these headers, under these settings."""
    guard = HostOriginGuard(_ok, settings_for_tests(tmp_path, **settings))
    transport = httpx.ASGITransport(app=guard)
    async with httpx.AsyncClient(transport=transport, base_url="http://placeholder") as http:
        return (await http.post("/mcp", headers=headers)).status_code


@pytest.mark.parametrize(
    ("settings", "headers", "expected"),
    [
        # OUTRIDER_MCP_ALLOWED_HOSTS replaces the loopback names: a bare name allows any port
        ({"mcp_allowed_hosts": "outrider.internal"}, {"Host": "outrider.internal:8443"}, 200),
        ({"mcp_allowed_hosts": "outrider.internal"}, {"Host": "localhost:8080"}, 421),
        ({"mcp_allowed_hosts": "outrider.internal:443"}, {"Host": "outrider.internal:80"}, 421),
        (
            {"mcp_allowed_hosts": "outrider.internal"},
            {"Host": "outrider.internal", "Origin": "https://outrider.internal"},
            200,
        ),
        (
            {"mcp_allowed_hosts": "outrider.internal"},
            {"Host": "outrider.internal", "Origin": "https://evil.example"},
            403,
        ),
        # a loopback server behind a proxy of OUTRIDER_PUBLIC_URL answers that name too
        (
            {"public_url": "https://outrider.example.com"},
            {"Host": "outrider.example.com", "Origin": "https://outrider.example.com"},
            200,
        ),
        ({"public_url": "https://outrider.example.com"}, {"Host": "evil.example"}, 421),
        # bound beyond loopback: any Host, but a page only of the host it addressed
        ({"rest_host": "0.0.0.0"}, {"Host": "10.1.2.3:8080"}, 200),
        (
            {"rest_host": "0.0.0.0"},
            {"Host": "10.1.2.3:8080", "Origin": "http://10.1.2.3:8080"},
            200,
        ),
        ({"rest_host": "0.0.0.0"}, {"Host": "10.1.2.3:8080", "Origin": "http://evil.example"}, 403),
        # OUTRIDER_CORS_ORIGINS: pages the operator allows
        (
            {"cors_origins": "https://app.example"},
            {"Host": "localhost", "Origin": "https://app.example"},
            200,
        ),
    ],
)
async def test_the_guard_s_rules(
    tmp_path: Path, settings: dict[str, Any], headers: dict[str, str], expected: int
) -> None:
    assert await guarded(tmp_path, headers, **settings) == expected
