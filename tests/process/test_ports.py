"""One port, one server: a second Outrider on a taken port exits at once with one clear line.

Before, gRPC bound with SO_REUSEPORT, so the second server started and the kernel split new
clients between the two (and their two databases); a taken REST port printed ~49 traceback lines.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from outrider.v1 import run_pb2, run_service_pb2, run_service_pb2_grpc
from tests.support.harness import REPO_ROOT, ServerProcess
from tests.support.requests import automate_request


@pytest.fixture
def first(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path / "first")
    process.start()
    yield process
    process.close()


def run_until_exit(data_dir: Path, **env: str) -> tuple[int, str]:
    """A second server process with these OUTRIDER_* settings, run until it exits by itself."""
    base = {
        "OUTRIDER_DATA_DIR": str(data_dir),
        "OUTRIDER_HOST": "127.0.0.1",
        "OUTRIDER_PORT": "0",
        "OUTRIDER_REST_PORT": "0",
        "PYTHONUNBUFFERED": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.test_server"],
        cwd=REPO_ROOT,
        env=os.environ | base | env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


async def health(port: int) -> int:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    return reply.status


async def test_a_second_server_on_the_same_grpc_port_refuses_to_start(
    tmp_path: Path, first: ServerProcess
) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{first.port}") as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        held = runs.Automate(automate_request(hold=True, steps=1))
        run_name = (await held.read()).event.run
        # Same port and the same data directory: it must not even close the first one's runs.
        code, output = run_until_exit(first.data_dir, OUTRIDER_PORT=str(first.port))
        assert code != 0
        assert "serving on" not in output
        assert f"cannot listen for gRPC on 127.0.0.1:{first.port}" in output, output
        assert "OUTRIDER_PORT" in output and "Traceback" not in output, output
        assert await health(first.port) == health_pb2.HealthCheckResponse.SERVING
        run = (await runs.GetRun(run_service_pb2.GetRunRequest(name=run_name))).run
        assert run.state == run_pb2.RUN_STATE_RUNNING
        held.cancel()


@pytest.mark.parametrize(
    ("setting", "what"),
    [
        ("OUTRIDER_REST_PORT", "REST/SSE"),
        ("OUTRIDER_METRICS_PORT", "metrics"),
        ("OUTRIDER_HEALTH_PORT", "gRPC health"),
    ],
)
def test_a_taken_port_is_one_clear_line_and_a_failed_exit(
    tmp_path: Path, setting: str, what: str
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as holder:
        port = holder.getsockname()[1]
        code, output = run_until_exit(tmp_path, **{setting: str(port)})
    assert code != 0
    lines = [line for line in output.splitlines() if line.strip()]
    assert lines == [
        f"outrider: cannot listen for {what} on 127.0.0.1:{port}: the port is in use. Another "
        f"process (perhaps another Outrider) holds it; stop that one or choose another port with "
        f"{setting}."
    ]


def test_a_taken_grpc_port_held_by_another_program_is_refused(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as holder:
        port = holder.getsockname()[1]
        code, output = run_until_exit(tmp_path, OUTRIDER_PORT=str(port))
    assert code != 0
    assert f"cannot listen for gRPC on 127.0.0.1:{port}: the port is in use" in output, output
    assert "Traceback" not in output and "serving on" not in output
