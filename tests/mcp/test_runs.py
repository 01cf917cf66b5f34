"""Runs outlive MCP calls: notifications/cancelled cancels the run, a call that merely goes away
leaves it running (unless it was started with cancel_on_disconnect), and get_run picks it up,
questions included. Production browser agent; the scripted model holds a run until told."""

from __future__ import annotations

import asyncio
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from mcp import types
from mcp.shared.exceptions import MCPError

from outrider.client import AsyncClient, Options, automate_params
from outrider.mcp.results import GOES_ON
from outrider.v1 import run_pb2
from tests.mcp.support import McpCase, Mode, Person, http_client, stdio_client, text_of
from tests.support.harness import REPO_ROOT, eventually

pytestmark = pytest.mark.asyncio(loop_scope="module")

SUBSCRIBER = {"Name": "Ada Lovelace", "Email": "ada@example.com", "Topic": "Teapots"}


async def held_run(case: McpCase, marker: str, go: Path, **options: Any) -> dict[str, Any]:
    return {
        "task": f"Scenario hold {marker}",
        "url": f"{case.sites}/shop/index.html",
        "options": {"model": case.model("hold", GO=str(go))} | options,
    }


async def run_with(
    client: AsyncClient, marker: str, state: int = run_pb2.RUN_STATE_RUNNING
) -> run_pb2.Run:
    """The run whose task carries `marker`, once it is in `state`."""
    found: list[run_pb2.Run] = []

    async def running() -> bool:
        page = await client.list_runs(page_size=20)
        found[:] = [r for r in page.items if marker in r.automate.task]
        return bool(found) and found[0].state == state

    await eventually(running, within=30)
    return found[0]


async def state_of(client: AsyncClient, name: str, state: int) -> run_pb2.Run:
    runs: list[run_pb2.Run] = []

    async def reached() -> bool:
        runs[:] = [await client.get_run(name)]
        return runs[0].state == state

    await eventually(reached, within=30)
    return runs[0]


@pytest.mark.parametrize(
    ("opener", "mode"),
    [
        pytest.param(http_client, "legacy", id="http-handshake"),
        pytest.param(stdio_client, "legacy", id="stdio-handshake"),
        pytest.param(stdio_client, "auto", id="stdio-2026"),
    ],
)
async def test_notifications_cancelled_cancels_the_run(
    mcp_case: McpCase, tmp_path: Path, opener: Any, mode: Mode
) -> None:
    key, marker = mcp_case.keys.keys["alpha-1"], uuid.uuid4().hex
    async with (
        AsyncClient(mcp_case.target, api_key=key) as grpc_client,
        opener(mcp_case, key, mode) as client,
    ):
        arguments = await held_run(mcp_case, marker, tmp_path / "never")
        call = asyncio.create_task(client.call_tool("automate", arguments))
        run = await run_with(grpc_client, marker)
        call.cancel()  # the SDK tells the server: notifications/cancelled
        with pytest.raises(asyncio.CancelledError):
            await call
        ended = await state_of(grpc_client, run.name, run_pb2.RUN_STATE_CANCELLED)
    assert ended.cancelled_by == "alpha-1"
    # the reason the SDK gave is kept
    assert ended.outcome.error_message == (
        "cancelled by alpha-1: the MCP client cancelled the call (caller cancelled)"
    )


@pytest.mark.parametrize("why", ["timeout", "kept"])
async def test_a_timeout_or_a_kept_run_survives_notifications_cancelled(
    mcp_case: McpCase, tmp_path: Path, why: str
) -> None:
    """The client's request timeout (the SDK cancels the call "timed out after 2.0s"), and any
    cancel of a call that asked for cancel_on_disconnect: false, leave the run going."""
    key, marker, go = mcp_case.keys.keys["alpha-1"], uuid.uuid4().hex, tmp_path / "go"
    options = {"cancel_on_disconnect": False} if why == "kept" else {}
    async with (
        AsyncClient(mcp_case.target, api_key=key) as grpc_client,
        stdio_client(mcp_case, key, "legacy") as client,
    ):
        arguments = await held_run(mcp_case, marker, go, **options)
        if why == "timeout":
            with pytest.raises(MCPError, match="timed out"):
                await client.call_tool("automate", arguments, read_timeout_seconds=2)
            run = await run_with(grpc_client, marker)
        else:
            call = asyncio.create_task(client.call_tool("automate", arguments))
            run = await run_with(grpc_client, marker)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
        read = await client.call_tool("get_run", {"run": run.name})
        await asyncio.sleep(2.5)  # past the server's wait for the cancel's reason
        assert (await grpc_client.get_run(run.name)).state == run_pb2.RUN_STATE_RUNNING
        go.touch()
        ended = await state_of(grpc_client, run.name, run_pb2.RUN_STATE_SUCCEEDED)
    assert ended.outcome.result == "Released."
    assert GOES_ON in text_of(read) and not read.is_error, text_of(read)


@pytest.mark.parametrize("cancel_on_disconnect", [False, True])
async def test_a_closed_stream_leaves_the_run_running_unless_asked(
    mcp_case: McpCase, tmp_path: Path, cancel_on_disconnect: bool
) -> None:
    """On 2026-07-28 HTTP a client cancels by closing the call's stream, exactly what a dropped
    connection does: the run goes on, unless it was started with cancel_on_disconnect."""
    key, marker, go = mcp_case.keys.keys["alpha-1"], uuid.uuid4().hex, tmp_path / "go"
    options = {"cancel_on_disconnect": True} if cancel_on_disconnect else {}
    async with AsyncClient(mcp_case.target, api_key=key) as grpc_client:
        async with http_client(mcp_case, key, "auto") as client:
            arguments = await held_run(mcp_case, marker, go, **options)
            call = asyncio.create_task(client.call_tool("automate", arguments))
            run = await run_with(grpc_client, marker)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
        if cancel_on_disconnect:
            await state_of(grpc_client, run.name, run_pb2.RUN_STATE_CANCELLED)
            return
        await asyncio.sleep(0.5)  # the server saw the stream close; the run must not end
        assert (await grpc_client.get_run(run.name)).state == run_pb2.RUN_STATE_RUNNING
        go.touch()
        async with http_client(mcp_case, key, "legacy") as client:
            found = await client.call_tool("get_run", {"run": run.name, "wait": True})
    content = found.structured_content or {}
    assert (content["state"], content.get("final_answer")) == ("succeeded", "Released."), content


async def test_cancelling_get_run_stops_following_only(mcp_case: McpCase, tmp_path: Path) -> None:
    """get_run is a read: a client that cancels it stops watching; the run goes on."""
    key, marker, go = mcp_case.keys.keys["alpha-1"], uuid.uuid4().hex, tmp_path / "go"
    arguments = await held_run(mcp_case, marker, go)
    async with AsyncClient(mcp_case.target, api_key=key) as grpc_client:
        params = automate_params(arguments["task"], url=arguments["url"])
        run = await grpc_client.create_run(
            params, options=Options(model=arguments["options"]["model"])
        )
        await run_with(grpc_client, marker)
        async with http_client(mcp_case, key, "legacy") as client:
            watching = asyncio.create_task(
                client.call_tool("get_run", {"run": run.name, "wait": True})
            )
            await asyncio.sleep(0.5)
            watching.cancel()  # notifications/cancelled for the get_run call
            with pytest.raises(asyncio.CancelledError):
                await watching
            await asyncio.sleep(0.5)
        assert (await grpc_client.get_run(run.name)).state == run_pb2.RUN_STATE_RUNNING
        go.touch()
        await state_of(grpc_client, run.name, run_pb2.RUN_STATE_SUCCEEDED)


async def test_cancel_run_cancels_a_running_run(mcp_case: McpCase, tmp_path: Path) -> None:
    key, marker = mcp_case.keys.keys["alpha-1"], uuid.uuid4().hex
    arguments = await held_run(mcp_case, marker, tmp_path / "never")
    async with AsyncClient(mcp_case.target, api_key=key) as grpc_client:
        params = automate_params(arguments["task"], url=arguments["url"])
        options = Options(model=arguments["options"]["model"])
        run = await grpc_client.create_run(params, options=options)
        await run_with(grpc_client, marker)
        async with http_client(mcp_case, key, "auto") as client:
            result = await client.call_tool("cancel_run", {"run": run.name, "reason": "enough"})
        ended = await state_of(grpc_client, run.name, run_pb2.RUN_STATE_CANCELLED)
    assert (result.structured_content or {})["state"] == "cancelled", text_of(result)
    assert not result.is_error  # cancelled as asked
    assert (ended.cancelled_by, ended.outcome.error_message) == (
        "alpha-1",
        "cancelled by alpha-1: enough",
    )


async def test_failed_and_cancelled_runs_are_tool_errors(mcp_case: McpCase, tmp_path: Path) -> None:
    """A host's model sees a run that did not succeed as an error, with the reason in the text
    and in the structured content, without reading `state`."""
    key, marker = mcp_case.keys.keys["alpha-1"], uuid.uuid4().hex
    async with http_client(mcp_case, key, "legacy") as client:
        failed = await client.call_tool("automate", {
            "task": "Scenario fails",
            "url": f"{mcp_case.sites}/shop/index.html",
            "options": {"model": mcp_case.model("fails")},
        })  # fmt: skip
        async with AsyncClient(mcp_case.target, api_key=key) as grpc_client:
            arguments = await held_run(mcp_case, marker, tmp_path / "never")
            params = automate_params(arguments["task"], url=arguments["url"])
            options = Options(model=arguments["options"]["model"])
            run = await grpc_client.create_run(params, options=options)
            await run_with(grpc_client, marker)
            await grpc_client.cancel_run(run.name, reason="changed my mind")
        cancelled = await client.call_tool("get_run", {"run": run.name})

    content = failed.structured_content or {}
    assert failed.is_error and content["state"] == "failed", text_of(failed)
    assert content["error"]["message"] in text_of(failed) and content["error"]["code"]
    content = cancelled.structured_content or {}
    assert cancelled.is_error and content["state"] == "cancelled", text_of(cancelled)
    assert "changed my mind" in content["error"]["message"] in text_of(cancelled)


async def test_get_run_picks_up_a_vanished_client_s_run_and_its_question(
    mcp_case: McpCase,
) -> None:
    """The client process dies with the form open: nothing cancels the run, which waits for
    its answer; another client takes the question over with get_run(wait=true)."""
    key, task = mcp_case.keys.keys["alpha-2"], f"Scenario newsletter {uuid.uuid4().hex}"
    start = f"{mcp_case.sites}/shop/newsletter.html"
    vanishing = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.mcp.vanishing_client",
        mcp_case.url, key, task, start, mcp_case.model("newsletter"),
        cwd=REPO_ROOT, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert vanishing.stdout is not None
    try:
        assert await asyncio.wait_for(vanishing.stdout.readline(), 60) == b"ASKED\n"
    finally:
        vanishing.kill()
        await vanishing.wait()
    async with AsyncClient(mcp_case.target, api_key=key) as grpc_client:
        run = await run_with(grpc_client, task, run_pb2.RUN_STATE_INPUT_REQUIRED)
    await asyncio.sleep(0.5)  # the server noticed the dropped connection: still waiting
    person = Person(values=SUBSCRIBER)
    async with http_client(mcp_case, key, "auto", person) as client:
        result = await client.call_tool("get_run", {"run": run.name, "wait": True})
    content = result.structured_content or {}
    assert (content["state"], content.get("final_answer")) == ("succeeded", "Subscribed."), content
    assert [len(f.requested_schema["properties"]) for f in person.forms()] == [3, 2]


@pytest.mark.parametrize("opener", [http_client, stdio_client], ids=["http", "stdio"])
async def test_listing_reading_and_screenshots(mcp_case: McpCase, opener: Any) -> None:
    key = mcp_case.keys.keys["alpha-1"]
    async with opener(mcp_case, key, "auto", Person(values=SUBSCRIBER)) as client:
        done = await client.call_tool("automate", {
            "task": "Scenario newsletter (read back)",
            "url": f"{mcp_case.sites}/shop/newsletter.html",
            "options": {"model": mcp_case.model("newsletter")},
        })  # fmt: skip
        name = (done.structured_content or {})["run"]
        listed = await client.call_tool("list_runs", {"state": "succeeded", "kind": "automate"})
        again = await client.call_tool("get_run", {"run": name.removeprefix("runs/")})
        screenshot = (done.structured_content or {})["screenshots"][0]
        image = await client.call_tool("read_artifact", {"artifact": screenshot})
        listed_tools = (await client.list_tools()).tools

    # the SDK client checks each result's structured content against its tool's output schema
    assert all(tool.output_schema for tool in listed_tools), listed_tools
    assert name in [r["run"] for r in (listed.structured_content or {})["runs"]]
    assert (again.structured_content or {})["final_answer"] == "Subscribed."
    (block,) = image.content
    assert isinstance(block, types.ImageContent) and block.mime_type == "image/jpeg"
    assert block.data.startswith("/9j/")  # base64 of a JPEG's FF D8 FF
    assert (image.structured_content or {})["content_type"] == "image/jpeg"


async def test_bad_arguments_are_tool_errors_naming_the_argument(mcp_case: McpCase) -> None:
    async with http_client(mcp_case, mcp_case.keys.keys["alpha-1"], "auto") as client:
        missing = await client.call_tool("automate", {"url": "https://example.com"})
        typed = await client.call_tool("get_run", {"run": 5})
        server_side = await client.call_tool(
            "automate", {"task": "x", "url": "ftp://example.com", "options": {"nope": 1}}
        )
        unknown = await client.call_tool("list_runs", {"state": "sleeping"})
        with pytest.raises(Exception, match="Unknown tool"):
            await client.call_tool("fly", {})
    assert missing.is_error and "task: is required" in text_of(missing)
    assert typed.is_error and "run: must be a string" in text_of(typed)
    assert server_side.is_error and "options.nope: is not an argument" in text_of(server_side)
    assert unknown.is_error and "state: must be one of" in text_of(unknown)
    url_refused = await _start_refusal(mcp_case, {"task": "x", "url": "ftp://example.com"})
    assert "url:" in url_refused, url_refused


async def _start_refusal(case: McpCase, arguments: dict[str, Any]) -> str:
    async with http_client(case, case.keys.keys["alpha-1"], "legacy") as client:
        result = await client.call_tool("automate", arguments)
    assert result.is_error
    return text_of(result)
