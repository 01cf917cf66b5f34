"""The server as a process: health during shutdown, graceful SIGTERM, recovery after SIGKILL."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from outrider.server.core.events.names import event_name
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_pb2, run_service_pb2, run_service_pb2_grpc
from tests.support.harness import ServerProcess
from tests.support.requests import automate_request, collect, names, read_rest

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture
def processes() -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for process in started:
        process.close()


def launch(processes: list[ServerProcess], data_dir: Path, **env: str) -> ServerProcess:
    process = ServerProcess(data_dir, **env)
    process.start()
    processes.append(process)
    return process


async def test_health_watch_sees_not_serving_during_shutdown(
    tmp_path: Path, processes: list[ServerProcess]
) -> None:
    process = launch(processes, tmp_path, OUTRIDER_SHUTDOWN_GRACE="1")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{process.port}") as channel:
        watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest())
        assert (await watch.read()).status == SERVING
        process.signal(signal.SIGTERM)
        assert (await watch.read()).status == NOT_SERVING
    code, output = process.wait()
    assert code == 0, output


async def test_sigterm_cancels_active_runs_with_terminal_events(
    tmp_path: Path, processes: list[ServerProcess]
) -> None:
    process = launch(processes, tmp_path, OUTRIDER_SHUTDOWN_GRACE="0.5")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{process.port}") as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        call = runs.Automate(automate_request(steps=1, hold=True))
        first = await call.read()
        process.signal(signal.SIGTERM)
        rest = await read_rest(call)  # the stream ends normally, with the terminal events
    events = [first.event, *rest]
    assert names(events)[-2:] == ["complete", "done"]
    assert "shutting down" in events[-2].automate.complete.error.message
    code, output = process.wait()
    assert code == 0, output


async def test_sigterm_lets_runs_finish_within_the_grace_and_refuses_new_ones(
    tmp_path: Path, processes: list[ServerProcess]
) -> None:
    process = launch(processes, tmp_path, OUTRIDER_SHUTDOWN_GRACE="20")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{process.port}") as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        call = runs.Automate(automate_request(steps=30, interval=0.02))
        first = await call.read()
        watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest())
        assert (await watch.read()).status == SERVING
        process.signal(signal.SIGTERM)
        assert (await watch.read()).status == NOT_SERVING
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await runs.CreateRun(
                run_service_pb2.CreateRunRequest(automate=automate_request().params),
                wait_for_ready=False,
            )
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        rest = await read_rest(call)
    events = [first.event, *rest]
    assert names(events).count("agent:step") == 30
    assert events[-2].automate.complete.success
    code, output = process.wait()
    assert code == 0, output


async def test_runs_left_by_a_killed_process_are_failed_after_restart(
    tmp_path: Path, processes: list[ServerProcess]
) -> None:
    first = launch(processes, tmp_path)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{first.port}") as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        finished = await collect(runs.Automate(automate_request(steps=2)))
        call = runs.Automate(automate_request(steps=3, hold=True))
        held = [(await call.read()).event for _ in range(7)]  # setup + 3 x (step, action)
        first.kill()
    second = launch(processes, tmp_path)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{second.port}") as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        run = (await runs.GetRun(run_service_pb2.GetRunRequest(name=held[0].run))).run
        assert run.state == run_pb2.RUN_STATE_FAILED
        assert run.outcome.error_code == "SERVER_RESTARTED"
        events = await collect(
            runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=held[0].run))
        )
        assert events[:7] == held  # nothing it had emitted was lost
        assert [event_name(e) for e in events[7:]] == ["complete", "done"]
        assert events[7].automate.complete.error.code == ae.AUTOMATE_ERROR_CODE_TASK_FAILED
        assert [e.sequence for e in events] == list(range(1, 10))
        replay = await collect(
            runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=finished[0].run))
        )
        assert replay == finished  # the finished run is intact
        old = (await runs.GetRun(run_service_pb2.GetRunRequest(name=finished[0].run))).run
        assert old.state == run_pb2.RUN_STATE_SUCCEEDED
