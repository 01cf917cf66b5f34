"""SIGTERM ends uploads still arriving at once, with 503 (not a 500 at the end of the grace): a
real server process, bodies stalled mid-way on the API, /a2a and /mcp, and a shutdown grace of
30 s that they no longer hold up."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.harness import ServerProcess
from tests.support.raw_mcp import MCP_HEADERS, mcp_session
from tests.support.uploads import Upload

GRACE = 30.0
DOORS = ("/v1/automate", "/a2a", "/mcp")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path, rest=True, OUTRIDER_SHUTDOWN_GRACE=f"{GRACE:g}")
    process.start()
    process.drain()
    yield process
    process.close()


async def test_sigterm_answers_stalled_uploads_with_503_at_once(server: ServerProcess) -> None:
    origin = f"http://127.0.0.1:{server.rest_port}"
    async with httpx.AsyncClient(headers=MCP_HEADERS, timeout=60) as http:
        await mcp_session(http, f"{origin}/mcp")  # /mcp serves (its SDK is loaded)
        uploads = [
            await Upload.begin(server.rest_port, path, "application/json", 1000, b'{"task": ')
            for path in DOORS
        ]
        # answered after the uploads began: the server has read their headers
        assert (await http.get(f"{origin}/healthz")).status_code == 200
    server.signal(signal.SIGTERM)
    # well within the grace, which the stalled bodies used to hold up before a 500
    answers = await asyncio.gather(*(u.answer(within=GRACE / 2) for u in uploads))
    assert [a.status for a in answers] == [503, 503, 503], answers
    api, a2a, mcp = (a.json() for a in answers)
    assert api["error"]["reason"] == "SHUTTING_DOWN"
    assert a2a["error"]["code"] == -32000 and a2a["error"]["data"][0]["reason"] == "SHUTTING_DOWN"
    assert mcp["error"]["code"] == -32000
    assert all("shutting down" in a.json()["error"]["message"] for a in answers)
    assert await asyncio.to_thread(server.process.wait, GRACE + 30) == 0  # type: ignore[union-attr]
