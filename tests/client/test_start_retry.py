"""Starts through outrider.client are safe to retry: each carries a request id (a new UUID unless
the caller gives one), and a start whose answer is lost (the server started the run, then the
connection broke: UNAVAILABLE) is sent again with the same id and returns that run. Counted on
the server: one run each time."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from outrider.client import AsyncClient, Client, InvalidArgumentError, automate_params, event_name
from outrider.v1 import run_service_pb2 as rs
from tests.client.proxy import CuttableProxy, answer_lost
from tests.support.harness import Harness


@pytest.fixture
async def proxy(harness: Harness) -> AsyncIterator[CuttableProxy]:
    proxy = CuttableProxy(harness.server.port)
    await proxy.start()
    yield proxy
    await proxy.stop()


@pytest.fixture
async def proxied(proxy: CuttableProxy) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(f"127.0.0.1:{proxy.port}") as client:
        await client.list_runs()  # connected: the answers dropped next are those of the start
        yield client


async def run_names(harness: Harness) -> list[str]:
    """Every run the server has (asked directly, not through the proxy)."""
    return [run.name for run in (await harness.runs.ListRuns(rs.ListRunsRequest())).runs]


def started(harness: Harness) -> Callable[[], Awaitable[bool]]:
    """Whether the server has the run (the start arrived and acted)."""

    async def arrived() -> bool:
        return len(await run_names(harness)) == 1

    return arrived


async def test_create_run_whose_answer_was_lost_is_retried_into_the_same_run(
    harness: Harness, proxy: CuttableProxy, proxied: AsyncClient
) -> None:
    call = proxied.create_run(automate_params("t", data={"steps": 1}))
    run = await answer_lost(proxy, call, started(harness))
    assert proxy.cuts == 1 and proxy.connections >= 2  # the first attempt's connection broke
    assert await run_names(harness) == [run.name]


async def test_a_stream_whose_start_was_lost_restarts_with_its_request_id(
    harness: Harness, proxy: CuttableProxy, proxied: AsyncClient
) -> None:
    async def read_all() -> list[str]:
        return [event_name(e) async for e in proxied.automate("t", data={"steps": 2})]

    events = await answer_lost(proxy, read_all(), started(harness))
    assert events[0] == "task:setup" and events[-2:] == ["complete", "done"]
    assert len(await run_names(harness)) == 1


async def test_an_interactive_start_whose_answer_was_lost_attaches_to_its_run(
    harness: Harness, proxy: CuttableProxy, proxied: AsyncClient
) -> None:
    async def read_all() -> list[str]:
        params = automate_params("t", data={"steps": 1})
        async with proxied.interact(params) as session:
            return [event_name(e) async for e in session]

    events = await answer_lost(proxy, read_all(), started(harness))
    assert events[0] == "task:setup" and events[-1] == "done"
    assert len(await run_names(harness)) == 1


async def test_the_blocking_client_retries_too(harness: Harness, proxy: CuttableProxy) -> None:
    client = Client(f"127.0.0.1:{proxy.port}")
    try:
        await asyncio.to_thread(client.list_runs)
        params = automate_params("t", data={"steps": 1})
        call = asyncio.to_thread(client.create_run, params)
        run = await answer_lost(proxy, call, started(harness))
    finally:
        await asyncio.to_thread(client.close)
    assert await run_names(harness) == [run.name]


async def test_a_callers_request_id_is_sent_as_it_is(harness: Harness) -> None:
    request_id = str(uuid.uuid4())
    params = automate_params("t", data={"steps": 0})
    async with AsyncClient(harness.target) as client:
        first = await client.create_run(params, request_id=request_id)
        again = await client.create_run(params, request_id=request_id)
        events = [e async for e in client.automate("t", data={"steps": 0}, request_id=request_id)]
        unkeyed = [await client.create_run(params, request_id="") for _ in range(2)]
        with pytest.raises(InvalidArgumentError) as refused:
            await client.create_run(params, request_id="order-42")
    assert again.name == first.name and {e.run for e in events} == {first.name}
    assert unkeyed[0].name != unkeyed[1].name
    assert "request_id" in refused.value.violations
    assert len(await run_names(harness)) == 3
