"""Streams survive dropped connections: the client reconnects and resumes after the last sequence,
losing and repeating nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from outrider.client import AsyncClient, automate_params, event_name
from outrider.v1 import run_event_pb2, run_service_pb2
from tests.client.proxy import CuttableProxy
from tests.support.harness import Harness, ServerProcess
from tests.support.ports import free_port
from tests.support.requests import collect


@pytest.fixture
async def proxy(harness: Harness) -> AsyncIterator[CuttableProxy]:
    proxy = CuttableProxy(harness.server.port)
    await proxy.start()
    yield proxy
    await proxy.stop()


@pytest.fixture
async def proxied(proxy: CuttableProxy) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(f"127.0.0.1:{proxy.port}") as client:
        yield client


async def truth(harness: Harness, run: str) -> list[run_event_pb2.RunEvent]:
    request = run_service_pb2.StreamRunEventsRequest(name=run)
    return await collect(harness.runs.StreamRunEvents(request))


async def read_cutting(
    stream: AsyncIterator[run_event_pb2.RunEvent], proxy: CuttableProxy, at: set[int]
) -> list[run_event_pb2.RunEvent]:
    received = []
    async for event in stream:
        received.append(event)
        if len(received) in at:
            proxy.cut()
    return received


async def test_automate_resumes_after_cuts(
    harness: Harness, proxy: CuttableProxy, proxied: AsyncClient
) -> None:
    # Slow enough that the run is still going at every cut (a finished stream needs no resume).
    stream = proxied.automate("t", data={"steps": 30, "interval": 0.05})
    received = await read_cutting(stream, proxy, at={5, 20, 41})
    assert proxy.cuts >= 2 and proxy.connections >= proxy.cuts + 1  # reconnected after each cut
    assert event_name(received[-1]) == "done"
    expected = await truth(harness, received[0].run)
    assert [e.SerializeToString() for e in received] == [e.SerializeToString() for e in expected]


async def test_events_resume_after_a_cut(
    harness: Harness, proxy: CuttableProxy, proxied: AsyncClient
) -> None:
    run = await proxied.create_run(automate_params("t", data={"steps": 20, "interval": 0.05}))
    received = await read_cutting(proxied.events(run.name, after=3), proxy, at={4, 9})
    assert proxy.connections >= 3
    expected = await truth(harness, run.name)
    assert [e.sequence for e in received] == [e.sequence for e in expected[3:]]


async def test_interactive_session_resumes_and_still_takes_answers(
    harness: Harness, proxy: CuttableProxy, proxied: AsyncClient
) -> None:
    data = {"steps": 10, "interval": 0.01, "ask_input": True}
    received = []
    async with proxied.interact(automate_params("t", data=data)) as session:
        async for event in session:
            received.append(event)
            if len(received) in (3, 12):
                proxy.cut()
            if event.automate.HasField("interactive_form_data_request"):
                proxy.cut()  # the answer must still arrive, on the next connection
                request_id = event.automate.interactive_form_data_request.request_id
                session.answer_form(request_id, {"E1": "r@e.sume"})
    assert proxy.cuts >= 2 and proxy.connections >= proxy.cuts + 1
    expected = await truth(harness, session.run)
    assert [e.sequence for e in received] == [e.sequence for e in expected]
    assert harness.agent.received_inputs == [{"E1": "r@e.sume"}]


async def test_stream_survives_a_server_killed_and_restarted_on_the_same_data(
    tmp_path: Path,
) -> None:
    port = free_port()
    server = ServerProcess(tmp_path / "data", OUTRIDER_PORT=str(port))
    await asyncio.to_thread(server.start)
    received: list[run_event_pb2.RunEvent] = []
    try:
        async with AsyncClient(f"127.0.0.1:{port}") as client:
            async for event in client.automate("t", data={"steps": 50, "interval": 0.05}):
                received.append(event)
                if len(received) == 8:
                    server.kill()  # SIGKILL mid-stream, then the same server comes back
                    await asyncio.to_thread(server.close)
                    server = ServerProcess(tmp_path / "data", OUTRIDER_PORT=str(port))
                    await asyncio.to_thread(server.start)
            replay = [e async for e in client.events(received[0].run)]
            run = await client.get_run(received[0].run)
    finally:
        server.close()
    assert [e.SerializeToString() for e in received] == [e.SerializeToString() for e in replay]
    assert run.outcome.error_code == "SERVER_RESTARTED"
    assert event_name(received[-1]) == "done"
