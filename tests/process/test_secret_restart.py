"""Issue 11.2: secret `data` lives only in the memory of the process running the run. After a
kill and restart the run fails with a reason that says so, and the data directory never held
the secret."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from outrider.v1 import run_pb2, run_service_pb2, run_service_pb2_grpc
from tests.browser.secret_checks import leaks_in_files
from tests.support.harness import ServerProcess
from tests.support.requests import automate_request

SECRET = "Restart Canary/Pw+42"


@pytest.fixture
def processes() -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for process in started:
        process.close()


async def test_a_restart_fails_a_run_whose_secrets_were_only_in_memory(
    tmp_path: Path, processes: list[ServerProcess]
) -> None:
    first = ServerProcess(tmp_path)
    processes.append(first)
    first.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{first.port}") as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        call = runs.Automate(automate_request(steps=1, hold=True, password=SECRET))
        held = [(await call.read()).event for _ in range(3)]  # setup, step, action
        first.kill()
    assert not leaks_in_files(SECRET, tmp_path)
    second = ServerProcess(tmp_path)
    processes.append(second)
    second.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{second.port}") as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        run = (await runs.GetRun(run_service_pb2.GetRunRequest(name=held[0].run))).run
    assert run.state == run_pb2.RUN_STATE_FAILED
    assert run.outcome.error_code == "SERVER_RESTARTED"
    assert "secret data" in run.outcome.error_message, run.outcome.error_message
    assert dict(run.automate.data)["password"] == "{{secret:password}}"
    assert not leaks_in_files(SECRET, tmp_path)
