"""The official Python MCP client against the real server: over streamable HTTP (/mcp, with a key)
and stdio (`outrider mcp`, over gRPC), in both protocol eras (the initialize handshake, whose
questions are pushed during the call; 2026-07-28, whose questions come back as input requests the
client retries with). Production browser agent, Chromium, the fixture shop, scripted models."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from mcp import Client, types

from outrider.client import AsyncClient
from outrider.mcp.asking import DECLINED_KEPT
from outrider.mcp.watch import NO_QUESTIONS
from outrider.v1 import run_event_pb2
from tests.mcp.support import (
    McpCase,
    Mode,
    Person,
    Progress,
    answer_on_the_page,
    http_client,
    stdio_client,
    text_of,
)
from tests.rest.support import start_rest
from tests.support.harness import eventually
from tests.support.ports import free_port

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


@pytest.mark.parametrize("opener", [http_client, stdio_client], ids=["http", "stdio"])
async def test_declining_the_form_and_rejecting_the_approval(
    mcp_case: McpCase, opener: Opener
) -> None:
    key = mcp_case.keys.keys["alpha-1"]
    async with opener(mcp_case, key, "legacy", Person(values=None)) as client:
        declined = await automate(client, mcp_case, "newsletter", "newsletter.html")
    rejecting = Person(values=SUBSCRIBER, decision="reject", reason="not this newsletter")
    async with opener(mcp_case, key, "auto", rejecting) as client:
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
async def test_a_password_goes_through_the_answer_page_never_the_client(
    mcp_case: McpCase, mode: Mode
) -> None:
    """The email is asked in the client's form; the password only on the one-time answer page
    (URL mode), which then asks for nothing else, and the run logs in."""
    person, password = Person(values={"Email": "ada@example.com"}), "correct-horse-battery"
    async with http_client(mcp_case, mcp_case.keys.keys["alpha-1"], mode, person) as client:
        call = asyncio.create_task(automate(client, mcp_case, "login", "login.html"))
        await eventually(lambda: bool(person.pages()) or call.done(), within=60)
        (page,) = person.pages()
        asked = await answer_on_the_page(page.url, password)
        result = await call

    content = result.structured_content or {}
    assert (content["state"], content.get("final_answer")) == ("succeeded", "Logged in."), content
    form, approval = person.forms()
    assert [p["title"] for p in form.requested_schema["properties"].values()] == ["Email"]
    assert "decision" in approval.requested_schema["properties"]
    assert page.url.startswith(f"{mcp_case.case.origin}/console/answer/")
    assert "Password" in page.message and "never through this assistant" in page.message
    assert asked == ["password"]  # the email, already given, is not asked again
    assert password not in str(person.asked) and password not in str(content)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_declining_the_answer_page_keeps_the_form_s_answers(
    mcp_case: McpCase, mode: Mode
) -> None:
    """The email is given in the client's form; the person declines the password's answer page:
    the email still goes to the agent, which is told the password was declined, and the run's
    events and the result's notes say so."""
    key = mcp_case.keys.keys["alpha-1"]
    person = Person(values={"Email": "ada@example.com"}, url_action="decline")
    async with http_client(mcp_case, key, mode, person) as client:
        result = await automate(client, mcp_case, "login_keep", "login.html")

    content = result.structured_content or {}
    answer = "Not logged in: the password was declined."
    assert content.get("final_answer") == answer, text_of(result)
    assert DECLINED_KEPT in content["notes"], content
    assert len(person.forms()) == 1 and len(person.pages()) == 1
    async with AsyncClient(mcp_case.target, api_key=key) as grpc_client:
        events = [e async for e in grpc_client.events(content["run"])]
    (resolved,) = [e.input_resolved for e in events if e.HasField("input_resolved")]
    (asked,) = [e.automate.interactive_form_data_request for e in events
                if e.automate.HasField("interactive_form_data_request")]  # fmt: skip
    email = next(f.ref for f in asked.fields if f.label == "Email")
    assert (resolved.submitted, list(resolved.refs)) == (True, [email])
    statuses = [e.automate.agent_status.message for e in events
                if e.automate.HasField("agent_status")]  # fmt: skip
    assert "The person declined to give Password; their other answers are in the page." in statuses


async def test_the_stdio_bridge_sends_the_whole_form_to_the_page(
    mcp_case: McpCase, tmp_path: Path
) -> None:
    """Over gRPC a form's answer cannot be given in parts, so a form with a password goes to
    the answer page whole (made absolute by OUTRIDER_PUBLIC_URL), and the client is not asked
    the email first."""
    port = free_port()
    case = await start_rest(
        tmp_path / "data",
        production=True,
        keys_file=mcp_case.keys.file,
        network_allow=urlsplit(mcp_case.sites).netloc,
        rest_port=port,
        public_url=f"http://127.0.0.1:{port}",
    )
    bridged = McpCase(case, mcp_case.keys, mcp_case.sites, mcp_case.folder)
    person = Person(values={})
    try:
        async with stdio_client(bridged, bridged.keys.keys["alpha-1"], "auto", person) as client:
            call = asyncio.create_task(automate(client, bridged, "login", "login.html"))
            await eventually(lambda: bool(person.pages()) or call.done(), within=60)
            (page,) = person.pages()
            asked = await answer_on_the_page(page.url, "ada@example.com")
            result = await call
    finally:
        await case.stop()
    content = result.structured_content or {}
    assert (content["state"], content.get("final_answer")) == ("succeeded", "Logged in."), content
    assert asked == ["email", "password"]
    (approval,) = person.forms()  # the only form: the approval
    assert "decision" in approval.requested_schema["properties"]


async def test_data_guardrails_and_an_approval_for_the_rest_of_the_run(mcp_case: McpCase) -> None:
    """automate's data and guardrails reach the agent (the scripted planner expects both); the
    approval answered "approve_always" covers the second typing on the same host."""
    key, person = mcp_case.keys.keys["alpha-1"], Person(values={}, decision="approve_always")
    async with http_client(mcp_case, key, "legacy", person) as client:
        result = await client.call_tool("automate", {
            "task": "Scenario standing_approval",
            "url": f"{mcp_case.sites}/shop/newsletter.html",
            "data": {"subscriber": {"name": "Grace Hopper", "email": "grace@example.com"}},
            "guardrails": "Never tick the marketing box.",
            "options": {"model": mcp_case.model("standing_approval")},
        })  # fmt: skip

    content = result.structured_content or {}
    assert content.get("final_answer") == "Both fields filled.", text_of(result)
    assert len(person.forms()) == 1  # one approval asked, for both typings
    async with AsyncClient(mcp_case.target, api_key=key) as grpc_client:
        run = await grpc_client.get_run(content["run"])
        resolved = [
            e.approval_resolved
            async for e in grpc_client.events(content["run"])
            if e.HasField("approval_resolved")
        ]
    assert run.automate.guardrails == "Never tick the marketing box."
    assert [r.scope for r in resolved] == [run_event_pb2.APPROVAL_SCOPE_ALWAYS]


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
