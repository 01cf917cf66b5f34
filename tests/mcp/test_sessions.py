"""Sessions through MCP: start_session, automate with its `session`, a follow-up that knows the
earlier run and starts on its page, a busy start refused as a tool error, and end_session; over
HTTP (the server's own edge) and over stdio (`outrider mcp`, the gRPC bridge)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from outrider.client import AsyncClient
from outrider.v1 import session_pb2
from tests.mcp.support import McpCase, Mode, http_client, stdio_client, text_of
from tests.support.harness import eventually

pytestmark = pytest.mark.asyncio(loop_scope="module")
BOTH_TRANSPORTS = pytest.mark.parametrize(
    ("opener", "mode"),
    [
        pytest.param(http_client, "legacy", id="http"),
        pytest.param(stdio_client, "legacy", id="stdio"),
    ],
)


@BOTH_TRANSPORTS
async def test_a_follow_up_in_a_session_started_with_start_session(
    mcp_case: McpCase, tmp_path: Path, opener: Any, mode: Mode
) -> None:
    key = mcp_case.keys.keys["alpha-1"]
    async with opener(mcp_case, key, mode) as client:
        started = await client.call_tool(
            "start_session",
            {"start_url": f"{mcp_case.sites}/shop/index.html", "idle_timeout_seconds": 120},
        )
        assert not started.is_error, text_of(started)
        session = started.structured_content["session"]
        assert started.structured_content["state"] == "idle"
        model = {"model": mcp_case.model("session_follow_up")}
        first = await client.call_tool(
            "automate",
            {"task": "What does the Red Mug cost?", "session": session, "options": model},
        )
        assert first.structured_content["final_answer"] == "The Red Mug costs $8.25."
        go = tmp_path / uuid.uuid4().hex
        held = {"model": mcp_case.model("hold", GO=str(go))}
        holding = asyncio.create_task(
            client.call_tool("automate", {"task": "Hold", "session": session, "options": held})
        )
        await _running(mcp_case, key, session)
        busy = await client.call_tool(
            "automate", {"task": "Another", "session": session, "options": model}
        )
        assert busy.is_error and "SESSION_BUSY" in text_of(busy)
        go.touch()
        await holding
        again = await client.call_tool(
            "automate", {"task": "Say again what it costs.", "session": session, "options": model}
        )
        assert again.structured_content["final_answer"] == "Again: the Red Mug costs $8.25."
        ended = await client.call_tool("end_session", {"session": session, "reason": "done"})
        assert ended.structured_content["state"] == "ended"
        assert ended.structured_content["end_reason"] == "SESSION_ENDED"
        refused = await client.call_tool(
            "automate", {"task": "x", "session": session, "options": model}
        )
        assert refused.is_error and "SESSION_ENDED" in text_of(refused)
        wrong = await client.call_tool(
            "automate", {"task": "x", "session": "nope", "options": model}
        )
        assert wrong.is_error and "session" in text_of(wrong)


async def _running(case: McpCase, key: str, session: str) -> None:
    """Until a run has the session (seen over gRPC)."""
    async with AsyncClient(case.target, api_key=key) as grpc_client:

        async def running() -> bool:
            got = await grpc_client.sessions.get(session)
            return got.state == session_pb2.SESSION_STATE_RUNNING

        await eventually(running, within=30)


@BOTH_TRANSPORTS
async def test_start_session_with_a_request_id_is_idempotent(
    mcp_case: McpCase, opener: Any, mode: Mode
) -> None:
    request_id = str(uuid.uuid4())
    arguments = {"kind": "research", "idle_timeout_seconds": 60, "request_id": request_id}
    async with opener(mcp_case, mcp_case.keys.keys["alpha-1"], mode) as client:
        first = await client.call_tool("start_session", arguments)
        again = await client.call_tool("start_session", arguments)
        reused = await client.call_tool("start_session", {**arguments, "idle_timeout_seconds": 9})
        malformed = await client.call_tool("start_session", {**arguments, "request_id": "x"})
    assert not first.is_error and not again.is_error, text_of(first)
    assert again.structured_content["session"] == first.structured_content["session"]
    assert reused.is_error and "IDEMPOTENCY_KEY_REUSED" in text_of(reused)
    assert malformed.is_error and "request_id" in text_of(malformed)


@BOTH_TRANSPORTS
async def test_start_session_from_a_profile_of_its_tenant(
    mcp_case: McpCase, opener: Any, mode: Mode
) -> None:
    profile_id = f"mcp-{uuid.uuid4().hex[:12]}"
    profile = f"profiles/{profile_id}"
    alpha, beta = (mcp_case.keys.keys[key] for key in ("alpha-1", "beta-1"))
    async with AsyncClient(mcp_case.target, api_key=alpha) as grpc_client:
        await grpc_client.profiles.create(profile_id)
        async with opener(mcp_case, alpha, mode) as client:
            started = await client.call_tool("start_session", {"profile": profile})
            research = await client.call_tool(
                "start_session", {"kind": "research", "profile": profile}
            )
            unknown = await client.call_tool("start_session", {"profile": "profiles/never-made"})
            bare = await client.call_tool("start_session", {"profile": profile_id})
        assert not started.is_error, text_of(started)
        assert started.structured_content["profile"] == profile
        session = started.structured_content["session"]
        assert (await grpc_client.sessions.get(session)).profile == profile
        await grpc_client.sessions.end(session)
    assert research.is_error
    assert text_of(research) == (
        "Refused: profile: only a browser session starts from a profile (INVALID_ARGUMENT)"
    )
    assert unknown.is_error
    assert text_of(unknown) == "Refused: profiles/never-made does not exist (NOT_FOUND)"
    assert bare.is_error and 'profile: must look like "profiles/<id>"' in text_of(bare)
    async with opener(mcp_case, beta, mode) as other_tenant:
        foreign = await other_tenant.call_tool("start_session", {"profile": profile})
    assert foreign.is_error
    assert text_of(foreign) == f"Refused: {profile} does not exist (NOT_FOUND)"
