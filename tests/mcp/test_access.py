"""Who may use /mcp: the keys and tenants of the other edges, sessions bound to their principal,
and the Host/Origin checks the MCP transport asks for against DNS rebinding."""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.mcp.support import McpCase, http_client, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def post(case: McpCase, headers: dict[str, str], body: object = INITIALIZE) -> httpx.Response:
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.post(case.url, json=body, headers=ACCEPT | headers)


async def test_a_key_is_needed(mcp_case: McpCase) -> None:
    missing = await post(mcp_case, {})
    wrong = await post(mcp_case, {"Authorization": "Bearer not-a-key"})
    right = await post(mcp_case, mcp_case.keys.header("alpha-1"))
    assert (missing.status_code, wrong.status_code, right.status_code) == (401, 401, 200)
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert "missing or invalid API key" in missing.json()["error"]["message"]


async def test_hosts_and_origins_against_dns_rebinding(mcp_case: McpCase) -> None:
    key, port = mcp_case.keys.header("alpha-1"), mcp_case.case.rest.port
    rebound = await post(mcp_case, key | {"Host": "evil.example"})
    foreign = await post(mcp_case, key | {"Origin": "http://evil.example"})
    own = await post(
        mcp_case, key | {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"}
    )
    assert (rebound.status_code, foreign.status_code, own.status_code) == (421, 403, 200)


async def test_sessions_belong_to_their_principal(mcp_case: McpCase) -> None:
    opened = await post(mcp_case, mcp_case.keys.header("alpha-1"))
    session = {
        "Mcp-Session-Id": opened.headers["mcp-session-id"],
        "Mcp-Protocol-Version": "2025-11-25",
    }
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    stolen = await post(mcp_case, mcp_case.keys.header("beta-1") | session, listing)
    assert stolen.status_code == 404  # as if the session did not exist


async def test_tenants_see_only_their_runs(mcp_case: McpCase) -> None:
    async with http_client(mcp_case, mcp_case.keys.keys["alpha-1"], "auto") as alpha:
        started = await alpha.call_tool("automate", {
            "task": f"Scenario newsletter_from_data {uuid.uuid4().hex}",
            "url": f"{mcp_case.sites}/shop/newsletter.html",
            "options": {"model": mcp_case.model("newsletter_from_data")},
        })  # fmt: skip
    name = (started.structured_content or {}).get("run")
    assert name, text_of(started)
    async with http_client(mcp_case, mcp_case.keys.keys["beta-1"], "auto") as beta:
        seen = await beta.call_tool("get_run", {"run": name})
        listed = await beta.call_tool("list_runs", {"page_size": 100})
        cancelled = await beta.call_tool("cancel_run", {"run": name})
    assert seen.is_error and "NOT_FOUND" in text_of(seen)
    assert cancelled.is_error and "NOT_FOUND" in text_of(cancelled)
    assert name not in [r["run"] for r in (listed.structured_content or {})["runs"]]
