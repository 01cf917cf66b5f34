"""The automate tool's profile, profile_save and credentials options: checked as arguments, and
by the server as for every door (a profile or credential of another tenant is NOT_FOUND)."""

from __future__ import annotations

import grpc
import pytest

from outrider.v1 import profile_service_pb2 as ps
from outrider.v1 import profile_service_pb2_grpc as psg
from tests.mcp.support import McpCase, http_client, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_automate_names_profiles_and_credentials_of_its_tenant(mcp_case: McpCase) -> None:
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{mcp_case.case.grpc.port}")
    profiles = psg.ProfileServiceStub(channel)
    await profiles.CreateProfile(
        ps.CreateProfileRequest(profile_id="mcp-crm"), metadata=mcp_case.keys.bearer("alpha-1")
    )
    await channel.close()
    async with http_client(mcp_case, mcp_case.keys.keys["beta-1"], "legacy") as client:
        other = await client.call_tool(
            "automate", {"task": "x", "options": {"profile": "profiles/mcp-crm"}}
        )
        missing = await client.call_tool(
            "automate", {"task": "x", "options": {"credentials": ["credentials/none"]}}
        )
        bad = await client.call_tool(
            "automate", {"task": "x", "options": {"profile_save": "sometimes"}}
        )
    assert other.is_error and "profiles/mcp-crm does not exist" in text_of(other)
    assert missing.is_error and "credentials/none does not exist" in text_of(missing)
    assert bad.is_error and "options.profile_save: must be one of" in text_of(bad)
