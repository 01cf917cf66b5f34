"""Service behaviour over real gRPC: auth, limits, unimplemented agents, listing, artifacts."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from outrider.server.agents import production_agents
from outrider.server.grpc_edge.server import OutriderServer
from outrider.v1 import (
    params_pb2,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
)
from tests.conftest import HarnessFactory
from tests.support.harness import Harness, rich_error, settings_for_tests
from tests.support.requests import automate_request, collect
from tests.support.script_agent import ARTIFACT_BYTES

KEY = "test-key-123"


def bearer(key: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {key}"),)


async def test_api_keys_guard_every_service_but_health(make_harness: HarnessFactory) -> None:
    harness = await make_harness(api_keys=f"{KEY}, other-key")
    get = run_service_pb2.GetRunRequest(name="runs/0123456789abcdef")
    for metadata in [(), bearer("wrong"), (("authorization", KEY),)]:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await harness.runs.GetRun(get, metadata=metadata)
        assert rich_error(caught.value).reason == "UNAUTHENTICATED"
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await harness.runs.GetRun(get, metadata=bearer(KEY))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND  # past auth
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await collect(harness.runs.Automate(automate_request()))
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.aio.AioRpcError) as caught:  # refused on its metadata alone; a
        # write racing the refusal would fail on the client's side as INTERNAL (grpc.aio)
        await harness.interactions.Interact().read()
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    events = await collect(harness.runs.Automate(automate_request(), metadata=bearer("other-key")))
    assert events[-1].automate.HasField("done")
    health = health_pb2_grpc.HealthStub(harness.channel)
    reply = await health.Check(health_pb2.HealthCheckRequest())
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


async def test_full_server_refuses_with_a_retry_hint(make_harness: HarnessFactory) -> None:
    harness = await make_harness(max_concurrent_runs=1, max_queued_runs=0, busy_retry_after=7)
    create = run_service_pb2.CreateRunRequest(automate=automate_request(hold=True).params)
    held = (await harness.runs.CreateRun(create)).run
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await harness.runs.CreateRun(create)
    error = rich_error(caught.value)
    assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED and error.retry_delay == 7
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=held.name))
    assert (await harness.runs.CreateRun(create)).run.name != held.name  # a slot is free again


async def test_production_server_without_a_model_refuses_runs_and_says_how(
    tmp_path: Path,
) -> None:
    settings = settings_for_tests(tmp_path)
    server = OutriderServer(settings, production_agents(settings))
    port = await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            serving = await health.Check(health_pb2.HealthCheckRequest())
            assert serving.status == health_pb2.HealthCheckResponse.SERVING
            runs = run_service_pb2_grpc.RunServiceStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await runs.Automate(automate_request()).read()
            error = rich_error(caught.value)
            assert error.code == grpc.StatusCode.FAILED_PRECONDITION
            assert error.reason == "MODEL_NOT_CONFIGURED" and "OUTRIDER_MODEL" in error.message
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await runs.Research(run_service_pb2.ResearchRequest(params={"query": "q"})).read()
            assert rich_error(caught.value).reason == "MODEL_NOT_CONFIGURED"
            assert list((await runs.ListRuns(run_service_pb2.ListRunsRequest())).runs) == []
    finally:
        await server.stop()


async def test_list_runs_pages_newest_first_and_filters(harness: Harness) -> None:
    names = [
        (await collect(harness.runs.Automate(automate_request(steps=1))))[0].run for _ in range(5)
    ]
    held = (
        await harness.runs.CreateRun(
            run_service_pb2.CreateRunRequest(automate=automate_request(hold=True).params)
        )
    ).run
    seen, token = [], ""
    while True:
        page = await harness.runs.ListRuns(
            run_service_pb2.ListRunsRequest(
                page_size=2, page_token=token, states=[run_pb2.RUN_STATE_SUCCEEDED]
            )
        )
        assert len(page.runs) <= 2
        seen += [r.name for r in page.runs]
        token = page.next_page_token
        if not token:
            break
    assert seen == list(reversed(names))
    running = await harness.runs.ListRuns(
        run_service_pb2.ListRunsRequest(
            states=[run_pb2.RUN_STATE_RUNNING, run_pb2.RUN_STATE_QUEUED]
        )
    )
    assert [r.name for r in running.runs] == [held.name]
    assert running.runs[0].last_sequence >= 1
    research = await harness.runs.ListRuns(
        run_service_pb2.ListRunsRequest(kind=run_pb2.RUN_KIND_RESEARCH)
    )
    assert list(research.runs) == []
    got = (await harness.runs.GetRun(run_service_pb2.GetRunRequest(name=names[0]))).run
    assert got.automate.task == "test task" and got.HasField("end_time") and got.outcome.success


async def test_artifacts_are_read_in_chunks(harness: Harness) -> None:
    events = await collect(harness.runs.Automate(automate_request(steps=1, artifact=True)))
    shot = next(e for e in events if e.automate.HasField("browser_screenshot_captured"))
    assert shot.artifact.startswith(f"{shot.run}/artifacts/")
    chunks = [
        c
        async for c in harness.runs.ReadArtifact(
            run_service_pb2.ReadArtifactRequest(name=shot.artifact, chunk_size=1000)
        )
    ]
    assert b"".join(c.data for c in chunks) == ARTIFACT_BYTES
    assert [c.offset for c in chunks] == list(range(0, len(ARTIFACT_BYTES), 1000))
    assert {c.content_type for c in chunks} == {"image/png"}
    assert {c.total_size for c in chunks} == {len(ARTIFACT_BYTES)}
    tail = [
        c
        async for c in harness.runs.ReadArtifact(
            run_service_pb2.ReadArtifactRequest(name=shot.artifact, offset=len(ARTIFACT_BYTES) - 5)
        )
    ]
    assert b"".join(c.data for c in tail) == ARTIFACT_BYTES[-5:]
    for request, code in [
        (run_service_pb2.ReadArtifactRequest(name=shot.artifact, offset=10**9), "OUT_OF_RANGE"),
        (
            run_service_pb2.ReadArtifactRequest(name=f"{shot.run}/artifacts/0123456789ab"),
            "NOT_FOUND",
        ),
        (run_service_pb2.ReadArtifactRequest(name="runs/x"), "INVALID_ARGUMENT"),
    ]:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await harness.runs.ReadArtifact(request).read()
        assert caught.value.code().name == code


async def test_unexpected_errors_are_internal_without_details(harness: Harness) -> None:
    harness.server.store._conn.execute("DROP TABLE runs")  # sabotage: the store fails
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await harness.runs.GetRun(run_service_pb2.GetRunRequest(name="runs/0123456789abcdef"))
    error = rich_error(caught.value)
    assert error.code == grpc.StatusCode.INTERNAL and error.reason == "INTERNAL"
    assert "runs" not in error.message and "Traceback" not in error.message


def test_params_defaults_follow_tabstack() -> None:
    from outrider.server.core import validation

    params = params_pb2.AutomateParams(task="t")
    assert validation.max_iterations(params) == 50
    assert validation.max_validation_attempts(params) == 3
    params.max_iterations = 7
    assert validation.max_iterations(params) == 7
