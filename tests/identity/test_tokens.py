"""Client-credential tokens doing work: a service's runs belong to the tenant and principal its
claims name on every door, scopes decide what it may do (403 insufficient_scope on /mcp, so an
OAuth client can ask for more), and the IdP rotates its key while the server runs."""

from __future__ import annotations

import asyncio
import time

import grpc
import httpx
import jwt
import pytest

from outrider.v1 import params_pb2, run_service_pb2_grpc
from outrider.v1 import run_service_pb2 as rs
from tests.identity.doors import MCP_HEADERS, MCP_INITIALIZE, grpc_door
from tests.identity.support import API, IdentityCase
from tests.support.harness import rich_error

pytestmark = pytest.mark.asyncio(loop_scope="module")


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def started_run(case: IdentityCase, token: str) -> str:
    async with grpc.aio.insecure_channel(case.grpc_target) as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        request = rs.CreateRunRequest(automate=params_pb2.AutomateParams(task="a service's run"))
        created = await runs.CreateRun(request, metadata=bearer(token))
    assert created.run.tenant == "billing"
    assert created.run.created_by == "billing-service"
    return str(created.run.name).removeprefix("runs/")


async def test_a_services_run_is_its_tenants_on_every_door(identity: IdentityCase) -> None:
    token = identity.service_token()
    run_id = await started_run(identity, token)
    async with httpx.AsyncClient(base_url=identity.origin, timeout=30) as http:
        rest = await http.get(f"/v1/runs/{run_id}", headers={"Authorization": f"Bearer {token}"})
        other_tenant = await http.get(f"/v1/runs/{run_id}", headers=identity.keys.header("ops-key"))
        task = await http.post(
            "/a2a",
            json={"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": run_id}},
            headers={"Authorization": f"Bearer {token}", "A2A-Version": "1.0"},
        )
    assert rest.status_code == 200 and rest.json()["tenant"] == "billing", rest.text
    assert other_tenant.status_code == 404  # keys of tenant alpha do not see it
    assert task.json()["result"]["id"] == run_id, task.text
    mcp_token = identity.service_token(resource=identity.mcp_url)
    seen = await mcp_tool(identity, mcp_token, "get_run", {"run": f"runs/{run_id}"})
    assert seen.status_code == 200, seen.text
    assert f'"run":"runs/{run_id}"' in seen.text and '"isError":true' not in seen.text


async def mcp_tool(
    case: IdentityCase, token: str, tool: str, arguments: dict[str, object]
) -> httpx.Response:
    """An MCP session opened with `token`, then one tools/call in it."""
    headers = MCP_HEADERS | {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(timeout=30) as http:
        opened = await http.post(case.mcp_url, json=MCP_INITIALIZE, headers=headers)
        assert opened.status_code == 200, opened.text
        session = {
            "Mcp-Session-Id": opened.headers["mcp-session-id"],
            "Mcp-Protocol-Version": "2025-11-25",
        }
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        return await http.post(case.mcp_url, json=call, headers=headers | session)


async def test_scopes_decide_what_a_service_may_do(identity: IdentityCase) -> None:
    reader = identity.service_token("billing-reader")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await started_run(identity, reader)
    error = rich_error(refused.value)
    assert (error.code, error.reason) == (grpc.StatusCode.PERMISSION_DENIED, "MISSING_SCOPE")
    assert (await grpc_door(identity, reader)).outcome == "ok"  # reading is allowed


async def test_mcp_asks_for_the_scope_a_tool_needs(identity: IdentityCase) -> None:
    reader = identity.service_token("billing-reader", resource=identity.mcp_url)
    listed = await mcp_tool(identity, reader, "list_runs", {"page_size": 5})
    assert listed.status_code == 200, listed.text
    starting = await mcp_tool(identity, reader, "automate", {"task": "t", "url": "https://x.test"})
    assert starting.status_code == 403
    challenge = starting.headers["www-authenticate"]
    assert 'error="insufficient_scope"' in challenge
    assert 'scope="runs.read runs.start"' in challenge
    assert f'resource_metadata="{identity.origin}/.well-known/oauth-protected-resource/mcp"' in (
        challenge
    )


async def test_a_bare_401_on_mcp_leads_to_the_idp(identity: IdentityCase) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        bare = await http.post(identity.mcp_url, json=MCP_INITIALIZE, headers=MCP_HEADERS)
        challenge = bare.headers["www-authenticate"]
        metadata_url = challenge.split('resource_metadata="')[1].split('"')[0]
        metadata = await http.get(metadata_url)
        at_root = await http.get(f"{identity.origin}/.well-known/oauth-protected-resource")
    assert bare.status_code == 401
    assert "error=" not in challenge  # no token was sent (RFC 6750 section 3.1)
    assert 'scope="runs.start runs.read runs.cancel interactions.answer"' in challenge
    assert metadata.status_code == 200
    assert metadata.json() == at_root.json()
    assert metadata.json()["resource"] == identity.mcp_url
    assert metadata.json()["authorization_servers"] == [identity.idp.issuer]
    assert "runs.start" in metadata.json()["scopes_supported"]


async def test_the_a2a_card_names_the_idp(identity: IdentityCase) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        card = (
            await http.get(
                f"{identity.origin}/.well-known/agent-card.json", headers={"A2A-Version": "1.0"}
            )
        ).json()
    scheme = card["securitySchemes"]["oidc"]["openIdConnectSecurityScheme"]
    assert scheme["openIdConnectUrl"] == f"{identity.idp.issuer}/.well-known/openid-configuration"
    wanted = {"schemes": {"oidc": {"list": ["runs.read", "runs.start"]}}}
    assert wanted in card["securityRequirements"]


async def test_the_idp_rotates_its_key_while_the_server_runs(identity: IdentityCase) -> None:
    before = identity.service_token()
    assert (await grpc_door(identity, before)).outcome == "ok"
    new = identity.idp.rotate()
    after = identity.service_token()
    assert jwt.get_unverified_header(after)["kid"] == new["kid"]
    assert (await grpc_door(identity, after)).outcome == "ok"  # no restart
    assert (await grpc_door(identity, before)).outcome == "ok"  # the old key is still listed


async def test_a_stream_ends_when_its_token_expires(identity: IdentityCase) -> None:
    """Streams check their credential again at each batch and heartbeat (5 s here): past its
    expiry and the leeway (30 s), the token ends the stream; the run goes on."""
    now = int(time.time())
    claims = {
        "sub": "billing-service",
        "tenant": "billing",
        "scope": "runs.start runs.read runs.cancel",
        "aud": API,
        "iat": now - 60,
        "exp": now - 27,  # still inside the leeway for about 3 s
    }
    token = identity.idp.mint(claims)
    async with grpc.aio.insecure_channel(identity.grpc_target) as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        params = params_pb2.AutomateParams(task="a long errand")
        params.data.update({"steps": 1, "hold": True})
        created = await runs.CreateRun(rs.CreateRunRequest(automate=params), metadata=bearer(token))
        stream = runs.StreamRunEvents(
            rs.StreamRunEventsRequest(name=created.run.name), metadata=bearer(token)
        )
        with pytest.raises(grpc.aio.AioRpcError) as ended:
            async with asyncio.timeout(60):
                async for _ in stream:
                    pass
        error = rich_error(ended.value)
        assert (error.code, error.reason) == (grpc.StatusCode.UNAUTHENTICATED, "CREDENTIAL_REVOKED")
        fresh = bearer(identity.service_token())
        still = await runs.GetRun(rs.GetRunRequest(name=created.run.name), metadata=fresh)
        assert not still.run.HasField("end_time")
        await runs.CancelRun(rs.CancelRunRequest(name=created.run.name), metadata=fresh)
