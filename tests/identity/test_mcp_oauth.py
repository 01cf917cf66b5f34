"""An MCP client that does the OAuth flow by itself (the TypeScript SDK's OAuth client provider,
tests/mcp/node/oauth_client.mjs) connects to /mcp from a bare 401: protected resource metadata,
the IdP's metadata, dynamic registration, the code flow with PKCE and a resource indicator, a
person at the IdP's login page, then tools with the token the IdP issued for /mcp."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from tests.identity.support import IdentityCase
from tests.mcp.test_node_client import PACKAGE, node

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_an_mcp_client_signs_in_through_the_idp_by_itself(identity: IdentityCase) -> None:
    environment = os.environ | {"MCP_URL": identity.mcp_url, "LOGIN": "alice"}
    process = await asyncio.create_subprocess_exec(
        node(), "oauth_client.mjs",
        cwd=PACKAGE, env=environment,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), timeout=110)
    assert process.returncode == 0, err.decode()[-3000:]
    answer = json.loads(out.decode().strip().splitlines()[-1])
    assert answer["seen"] == [
        "registered",  # after the 401 led it to the metadata and the IdP
        f"authorize resource={identity.mcp_url}",
        "login page",
        "401",  # the first connect ends unauthorized; the code is then redeemed
        "token",
    ]
    assert "automate" in answer["names"]
    assert not answer["listed"].get("isError"), answer["listed"]
