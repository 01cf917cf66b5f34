"""The official Python MCP client against the real server: over streamable HTTP (/mcp, with a key)
and stdio (`outrider mcp`, over gRPC), in both protocol eras (the initialize handshake, whose
questions are pushed during the call; 2026-07-28, whose questions come back as input requests the
client retries with). Production browser agent, Chromium, the fixture shop, scripted models."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import pytest
from mcp import Client, types

from outrider.client import AsyncClient
from outrider.mcp.watch import NO_QUESTIONS
from tests.mcp.support import McpCase, Mode, Person, Progress, http_client, stdio_client, text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

ERAS = {"legacy": "2025-11-25", "auto": "2026-07-28"}
Opener = Callable[..., AbstractAsyncContextManager[Client]]
TRANSPORTS = [
    pytest.param(http_client, "legacy", id="http-handshake"),
    pytest.param(http_client, "auto", id="http-2026"),
    pytest.param(stdio_client, "legacy", id="stdio-handshake"),
    pytest.param(stdio_client, "auto", id="stdio-2026"),
]
SUBSCRIBER = {"Name": "Ada Lovelace", "Email": "ada@example.com", "Topic": "Mugs"}


async def automate(
    client: Client, case: McpCase, scenario: str, page: str, progress: Progress | None = None
) -> types.CallToolResult:
    arguments = {
        "task": f"Scenario {scenario}",
        "url": f"{case.sites}/shop/{page}",
        "options": {"model": case.model(scenario)},
    }
    return await client.call_tool("automate", arguments, progress_callback=progress)


@pytest.mark.parametrize(("opener", "mode"), TRANSPORTS)
async def test_form_and_approval_are_asked_through_the_client(
    mcp_case: McpCase, opener: Opener, mode: Mode
) -> None:
    person, progress = Person(values=SUBSCRIBER), Progress()
    async with opener(mcp_case, mcp_case.keys.keys["alpha-1"], mode, person) as client:
        assert client.protocol_version == ERAS[mode]
        result = await automate(client, mcp_case, "newsletter", "newsletter.html", progress)

    content = result.structured_content or {}
    assert not result.is_error, text_of(result)
    assert (content["state"], content.get("final_answer")) == ("succeeded", "Subscribed."), content
    form, approval = person.forms()
    properties = form.requested_schema["properties"]
    assert [p["title"] for p in properties.values()] == ["Name", "Email", "Topic"]
    assert [p.get("format") for p in properties.values()] == [None, "email", None]
    assert list(properties.values())[2]["enum"] == ["Teapots", "Mugs"]
    decision = approval.requested_schema["properties"]["decision"]
    assert [c["const"] for c in decision["oneOf"]] == ["approve_once", "approve_always", "reject"]
    assert "Waiting for form data: Name, Email, Topic" in progress.messages
    assert any(m.startswith("Step 2: click") for m in progress.messages), progress.messages
    assert progress.values == sorted(set(progress.values)), "progress must increase"


async def test_declining_the_form_and_rejecting_the_approval(mcp_case: McpCase) -> None:
    key = mcp_case.keys.keys["alpha-1"]
    async with http_client(mcp_case, key, "legacy", Person(values=None)) as client:
        declined = await automate(client, mcp_case, "newsletter", "newsletter.html")
    rejecting = Person(values=SUBSCRIBER, decision="reject", reason="not this newsletter")
    async with http_client(mcp_case, key, "auto", rejecting) as client:
        rejected = await automate(client, mcp_case, "newsletter", "newsletter.html")

    assert declined.structured_content["final_answer"] == "Not subscribed: no details were given."  # type: ignore[index]
    assert rejected.structured_content["final_answer"] == (  # type: ignore[index]
        "Not subscribed: the submission was rejected."
    )
    async with AsyncClient(mcp_case.target, api_key=key) as grpc_client:
        name = rejected.structured_content["run"]  # type: ignore[index]
        resolved = [
            e.approval_resolved
            async for e in grpc_client.events(name)
            if e.HasField("approval_resolved")
        ]
    assert [(r.reason, r.resolved_by) for r in resolved] == [("not this newsletter", "alpha-1")]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_password_is_never_asked_through_the_client(mcp_case: McpCase, mode: Mode) -> None:
    person = Person(values={"Email": "ada@example.com"})
    async with http_client(mcp_case, mcp_case.keys.keys["alpha-1"], mode, person) as client:
        result = await automate(client, mcp_case, "login", "login.html")

    (form,) = person.forms()
    assert [p["title"] for p in form.requested_schema["properties"].values()] == ["Email"]
    content = result.structured_content or {}
    assert content["final_answer"] == "Not logged in: no login details."
    assert any("Password" in note and "answer page" in note for note in content["notes"]), content


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_client_without_elicitation_has_held_actions_refused(
    mcp_case: McpCase, mode: Mode
) -> None:
    progress = Progress()
    async with http_client(mcp_case, mcp_case.keys.keys["alpha-1"], mode) as client:
        result = await automate(
            client, mcp_case, "newsletter_from_data", "newsletter.html", progress
        )

    content = result.structured_content or {}
    assert content["final_answer"] == "Not subscribed: the firewall refused the form."
    assert NO_QUESTIONS in content["notes"]
    assert NO_QUESTIONS in text_of(result)
    assert any("action firewall blocked fill" in m for m in progress.messages), progress.messages
