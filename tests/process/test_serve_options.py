"""`outrider serve`, `python -m outrider.server` and `scripts/serve` take their common options,
each the same setting as its OUTRIDER_* variable (the option wins), and refuse unknown ones.
Before, the server never read its arguments: `./scripts/serve --port 25051` served on 50051."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.support.harness import REPO_ROOT
from tests.support.ports import free_port

CLI = [str(Path(sys.executable).parent / "outrider")]
SCENARIO = REPO_ROOT / "tests" / "fixtures" / "scenarios" / "research_fast.yaml"


def settle(command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """A command that exits by itself (help, usage errors)."""
    return subprocess.run(
        command,
        cwd=REPO_ROOT,
        env=os.environ | env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_help_lists_each_option_with_its_variable() -> None:
    for command in (
        [str(REPO_ROOT / "scripts" / "serve"), "--help"],
        [sys.executable, "-m", "outrider.server", "--help"],
        [*CLI, "serve", "--help"],
    ):
        done = settle(command)
        assert done.returncode == 0, done.stderr
        for option, variable in (
            ("--host", "OUTRIDER_HOST"),
            ("--port", "OUTRIDER_PORT"),
            ("--rest-port", "OUTRIDER_REST_PORT"),
            ("--data-dir", "OUTRIDER_DATA_DIR"),
            ("--model", "OUTRIDER_MODEL"),
        ):
            assert re.search(rf"{option} \w+\s+.*Same as\s+{variable}", done.stdout, re.S), (
                option,
                done.stdout,
            )
        assert "serving on" not in done.stdout


def test_unknown_options_and_refused_values_are_usage_errors() -> None:
    unknown = settle([*CLI, "serve", "--port", "0", "--bogus"])
    assert unknown.returncode == 2
    assert "outrider serve: error: unrecognized arguments: --bogus" in unknown.stderr
    too_big = settle([sys.executable, "-m", "outrider.server", "--port", "70000"])
    assert too_big.returncode == 2
    assert "--port: Input should be less than or equal to 65535" in too_big.stderr
    from_env = settle([sys.executable, "-m", "outrider.server"], OUTRIDER_REST_PORT="http")
    assert from_env.returncode == 2 and "OUTRIDER_REST_PORT: Input should be" in from_env.stderr
    for done in (unknown, too_big, from_env):
        assert "serving on" not in done.stdout and "Traceback" not in done.stderr


def test_options_win_over_the_variables(tmp_path: Path) -> None:
    port, rest_port = free_port(), free_port()
    data_dir = tmp_path / "given"
    env = os.environ | {
        "OUTRIDER_PORT": "1",  # each variable says something else: the options must win
        "OUTRIDER_REST_PORT": "2",
        "OUTRIDER_DATA_DIR": str(tmp_path / "from-variable"),
        "OUTRIDER_MODEL": "",
        "PYTHONUNBUFFERED": "1",
    }
    options = ["--host", "127.0.0.1", "--port", str(port), "--rest-port", str(rest_port)]
    options += ["--data-dir", str(data_dir), "--model", f"scripted:{SCENARIO}"]
    process = subprocess.Popen(
        [*CLI, "serve", *options], cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == f"outrider: serving on 127.0.0.1:{port}"
        assert f"http://127.0.0.1:{rest_port}/v1" in process.stdout.readline()
        assert ready(port)  # --model reached every agent: research runs can start
        assert (data_dir / "outrider.sqlite3").exists()
        assert not (tmp_path / "from-variable").exists()
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


def ready(port: int) -> bool:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        request = health_pb2.HealthCheckRequest(service="outrider.v1.RunService")
        reply = health_pb2_grpc.HealthStub(channel).Check(request, timeout=30)
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)
