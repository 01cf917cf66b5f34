"""Each status the server uses arrives as the client's own exception with its details."""

from __future__ import annotations

import asyncio
import signal
from datetime import timedelta
from pathlib import Path

import grpc
import pytest

from outrider.client import (
    AsyncClient,
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    Options,
    OutOfRangeError,
    ResourceExhaustedError,
    ResumePolicy,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
    automate_params,
)
from outrider.server.grpc_edge.server import OutriderServer
from outrider.v1 import run_pb2
from tests.conftest import HarnessFactory
from tests.support.harness import ServerProcess, settings_for_tests
from tests.support.script_agent import ScriptAgent


def _no_grpc_in(error: BaseException) -> None:
    assert not isinstance(error, grpc.RpcError)
    assert error.__cause__ is None and error.__suppress_context__


async def test_invalid_argument_carries_field_violations(client: AsyncClient) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        await client.create_run(automate_params(""))
    assert caught.value.status == "INVALID_ARGUMENT"
    assert "automate.task" in caught.value.violations
    _no_grpc_in(caught.value)


async def test_invalid_argument_on_a_stream(client: AsyncClient) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        _ = [e async for e in client.automate("")]
    assert "params.task" in caught.value.violations


async def test_not_found(client: AsyncClient) -> None:
    with pytest.raises(NotFoundError) as caught:
        await client.get_run("runs/" + "0" * 24)
    assert caught.value.status == "NOT_FOUND" and caught.value.reason


async def test_failed_precondition_reasons(client: AsyncClient, tmp_path: Path) -> None:
    with pytest.raises(FailedPreconditionError) as caught:
        missing = Options(model=f"scripted:{tmp_path / 'missing.yaml'}")
        await client.create_run(automate_params("t"), options=missing)
    assert caught.value.reason == "MODEL_NOT_CONFIGURED"
    run = await client.create_run(automate_params("t", data={"steps": 0, "ask_approval": True}))
    approval = await _first_pending(client, run.name)
    await client.decide_approval(approval, approve=True)
    with pytest.raises(FailedPreconditionError) as caught:
        await client.decide_approval(approval, approve=False)
    assert caught.value.reason == "INTERACTION_ALREADY_RESOLVED"


async def _first_pending(client: AsyncClient, run: str) -> str:
    for _ in range(200):
        page = await client.list_interactions(run=run)
        if page.items:
            return str(page.items[0].name)
        await asyncio.sleep(0.02)
    raise AssertionError("no interaction became pending")


async def test_out_of_range_cursor(client: AsyncClient) -> None:
    events = [e async for e in client.automate("t", data={"steps": 1})]
    with pytest.raises(OutOfRangeError) as caught:
        _ = [e async for e in client.events(events[0].run, after=len(events) + 5)]
    assert caught.value.reason == "SEQUENCE_OUT_OF_RANGE"


async def test_resource_exhausted_with_retry_delay(make_harness: HarnessFactory) -> None:
    harness = await make_harness(max_concurrent_runs=1, max_queued_runs=0, busy_retry_after=1.5)
    async with AsyncClient(harness.target) as client:
        run = await client.create_run(automate_params("t", data={"steps": 0, "hold": True}))
        with pytest.raises(ResourceExhaustedError) as caught:
            await client.create_run(automate_params("t"))
        assert caught.value.retry_delay == timedelta(seconds=1.5)
        await client.cancel_run(run.name)


async def test_unauthenticated_and_the_api_key(make_harness: HarnessFactory) -> None:
    harness = await make_harness(api_keys=("secret",))
    async with AsyncClient(harness.target) as anonymous:
        with pytest.raises(UnauthenticatedError):
            await anonymous.list_runs()
        with pytest.raises(UnauthenticatedError):
            _ = [e async for e in anonymous.automate("t")]
    async with AsyncClient(harness.target, api_key="secret") as client:
        assert (await client.list_runs()).items == []


async def test_unimplemented_kind(tmp_path: Path) -> None:
    agents = {run_pb2.RUN_KIND_AUTOMATE: ScriptAgent()}
    server = OutriderServer(settings_for_tests(tmp_path), agents)  # type: ignore[arg-type]
    port = await server.start()
    try:
        async with AsyncClient(f"127.0.0.1:{port}") as client:
            with pytest.raises(UnimplementedError):
                _ = [e async for e in client.research("q")]
    finally:
        await server.stop()


async def test_unavailable_and_deadline(unused_tcp_port: int) -> None:
    async with AsyncClient(f"127.0.0.1:{unused_tcp_port}") as client:
        with pytest.raises(UnavailableError) as caught:
            await client.list_runs()
        assert caught.value.status == "UNAVAILABLE"
        with pytest.raises(UnavailableError):
            _ = [e async for e in client.automate("t")]


async def test_deadline_as_timedelta(server_process: ServerProcess) -> None:
    async with AsyncClient(f"127.0.0.1:{server_process.port}") as client:
        await client.list_runs()  # the connection is up
        server_process.signal(signal.SIGSTOP)  # and now nobody answers on it
        try:
            with pytest.raises(DeadlineExceededError) as caught:
                await client.list_runs(deadline=timedelta(milliseconds=300))
        finally:
            server_process.signal(signal.SIGCONT)
    assert caught.value.status == "DEADLINE_EXCEEDED"


async def test_resume_gives_up_with_unavailable_when_the_server_stays_away(
    unused_tcp_port: int,
) -> None:
    policy = ResumePolicy(max_attempts=2, initial_backoff=timedelta(milliseconds=10))
    async with AsyncClient(f"127.0.0.1:{unused_tcp_port}", resume=policy) as client:
        with pytest.raises(UnavailableError):
            _ = [e async for e in client.events("runs/" + "0" * 24)]
