"""Issue 10, item 1: the renderer's Chromium and its guarded proxy live exactly as long as their
run: both are gone when the run ends and when the server shuts down in the middle of a render."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import pytest

from outrider.v1 import research_events_pb2 as re_pb
from tests.research.conftest import ResearchCase, ResearchCaseFactory
from tests.research.events import complete
from tests.research.probes import PROBES_DIR
from tests.research.scenarios import turn
from tests.research.web import Server, fixture_web
from tests.support.processes import chromium_processes, command_of

PLAN = {
    "objective": "Read the page.",
    "plan": "Read it.",
    "complexity": "simple",
    "questions": ["What does the page say?"],
    "queries": ["restless"],
}
SCRIPT = {"turns": [turn("planner", data=PLAN), turn("writer", text="It is restless [S1].")]}


@pytest.fixture
def web() -> Iterator[Server]:
    with fixture_web(PROBES_DIR) as server:
        yield server


async def renderer_proxy_port() -> int:
    """The port of the guarded proxy the renderer's Chromium was started with, once it runs."""
    while True:
        for pid in chromium_processes():
            found = re.search(r"--proxy-server=http://127\.0\.0\.1:(\d+)", command_of(pid))
            if found:
                return int(found.group(1))
        await asyncio.sleep(0.1)


async def all_gone(port: int) -> tuple[list[int], bool]:
    """Chromium processes still alive, and whether the proxy still accepts, once they had up to
    20 seconds to end."""
    for _ in range(200):
        if not chromium_processes():
            break
        await asyncio.sleep(0.1)
    try:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return chromium_processes(), False
    writer.close()
    await writer.wait_closed()
    return chromium_processes(), True


async def start(case: ResearchCase, web: Server, limit: float) -> asyncio.Task[Any]:
    return asyncio.create_task(
        case.research(
            f"Summarise {web.url}/restless.html", re_pb.RESEARCH_MODE_FAST, fetch_timeout=limit
        )
    )


async def test_the_renderer_and_its_proxy_end_with_the_run(
    research_case: ResearchCaseFactory, web: Server
) -> None:
    case = await research_case(SCRIPT, providers=("searxng",), js_fallback=True)
    run = await start(case, web, 5)
    port = await asyncio.wait_for(renderer_proxy_port(), 60)
    complete(await run)
    assert await all_gone(port) == ([], False)


async def test_shutdown_mid_render_leaves_no_chromium_and_no_proxy(
    research_case: ResearchCaseFactory, web: Server
) -> None:
    case = await research_case(
        SCRIPT, providers=("searxng",), settings={"shutdown_grace": 1.0}, js_fallback=True
    )
    run = await start(case, web, 90)  # the page never falls quiet: rendering lasts until then
    port = await asyncio.wait_for(renderer_proxy_port(), 60)
    await case.harness.server.stop()
    await asyncio.gather(run, return_exceptions=True)
    assert await all_gone(port) == ([], False)
