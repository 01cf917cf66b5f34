"""A stopping server ends MCP calls with their runs' endings, and idle MCP sessions (whose event
streams stay open) do not hold the REST edge's graceful stop up to its time limit."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

import pytest
from mcp import Client, types

from tests.rest.support import start_rest
from tests.support.harness import eventually

HOLD = {"task": "hold", "data": {"hold": True}}  # the test agent holds the run until cancelled


async def test_calls_get_their_endings_and_idle_sessions_close(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    case = await start_rest(tmp_path / "data", shutdown_grace=0.5)
    url, listed = f"{case.origin}/mcp", asyncio.Event()

    async def idle() -> None:
        async with Client(url, mode="legacy") as client:
            await client.list_tools()
            listed.set()
            await asyncio.Event().wait()  # its event stream stays open until the server ends it

    async def calling() -> types.CallToolResult | None:
        result = None
        with contextlib.suppress(Exception):  # closing, the client finds the server gone
            async with Client(url, mode="legacy") as client:
                await client.list_tools()  # the output schemas it checks results against
                result = await client.call_tool("automate", HOLD)
        return result

    idler, call = asyncio.create_task(idle()), asyncio.create_task(calling())
    await listed.wait()
    await eventually(lambda: case.grpc.runs.active_count == 1)  # the call's run started
    with caplog.at_level(logging.ERROR, logger="uvicorn.error"):
        await asyncio.wait_for(asyncio.gather(case.rest.stop(), case.grpc.stop()), 60)
    result = await call
    idler.cancel()
    await asyncio.gather(idler, return_exceptions=True)
    assert result is not None, "the call got no result"
    content = result.structured_content or {}
    assert (content["state"], content["error"]["code"]) == ("cancelled", "CANCELLED"), content
    assert "shutting down" in content["error"]["message"]
    assert not [r for r in caplog.records if "graceful shutdown" in r.getMessage()]
