"""A real Outrider server on a loopback port, in this process or in a child process, plus
helpers to read rich gRPC errors."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from pydantic import SecretStr

from outrider.server.agents import production_agents
from outrider.server.core.runs.agent import AgentRegistry
from outrider.server.demo import DEMO_DIR
from outrider.server.grpc_edge.server import OutriderServer
from outrider.server.settings import Settings
from outrider.server.settings.vault import VaultSettings
from outrider.v1 import interaction_service_pb2_grpc, run_pb2, run_service_pb2_grpc
from tests.support.script_agent import ScriptAgent

REPO_ROOT = Path(__file__).resolve().parents[2]
TEST_VAULT_KEY = "test-key:" + "dGVzdC12YXVsdC1rZXktb2YtMzItYnl0ZXMtLS0tLS0="  # 32 bytes
# Scenario files the suite names as scripted models, besides the ones written under tmp_path.
SCENARIO_FOLDERS = (REPO_ROOT / "tests" / "fixtures" / "scenarios", DEMO_DIR / "scenarios")


@dataclass
class Harness:
    server: OutriderServer
    channel: grpc.aio.Channel
    runs: run_service_pb2_grpc.RunServiceStub
    interactions: interaction_service_pb2_grpc.InteractionServiceStub
    agent: ScriptAgent

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.server.port}"


def settings_for_tests(data_dir: Path, **overrides: Any) -> Settings:
    base: dict[str, Any] = {
        "data_dir": data_dir,
        "host": "127.0.0.1",
        "port": 0,
        "heartbeat_interval": 5.0,
        "shutdown_grace": 2.0,
        "vault": VaultSettings(keys=SecretStr(TEST_VAULT_KEY)),  # profiles and credentials
    }
    return Settings(**(base | overrides))


async def start_harness(data_dir: Path, production: bool = False, **overrides: Any) -> Harness:
    """A server with the test-only ScriptAgent, or with the production agents."""
    agent = ScriptAgent()
    settings = settings_for_tests(data_dir, **overrides)
    agents: AgentRegistry = (
        production_agents(settings)
        if production
        else {run_pb2.RUN_KIND_AUTOMATE: agent, run_pb2.RUN_KIND_RESEARCH: agent}
    )
    server = OutriderServer(settings, agents)
    port = await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    return Harness(
        server,
        channel,
        run_service_pb2_grpc.RunServiceStub(channel),
        interaction_service_pb2_grpc.InteractionServiceStub(channel),
        agent,
    )


async def stop_harness(harness: Harness) -> None:
    await harness.channel.close()
    await harness.server.stop()


@dataclass(frozen=True)
class RichError:
    code: grpc.StatusCode
    message: str
    reason: str
    violations: dict[str, str]
    retry_delay: float | None


def rich_error(error: grpc.aio.AioRpcError | grpc.RpcError) -> RichError:
    """Decodes google.rpc.Status details from the trailers of a failed call."""
    trailers = dict(error.trailing_metadata() or ())  # type: ignore[union-attr]
    status = status_pb2.Status.FromString(trailers.get("grpc-status-details-bin", b""))
    reason, violations, delay = "", {}, None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = info.reason
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            violations = {v.field: v.description for v in bad.field_violations}
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            delay = retry.retry_delay.ToMilliseconds() / 1000
    return RichError(error.code(), error.details() or "", reason, violations, delay)  # type: ignore[union-attr]


async def eventually(
    check: Callable[[], Awaitable[bool]] | Callable[[], bool], within: float = 10.0
) -> None:
    """Polls `check` until it returns True, failing after `within` seconds (no fixed sleeps)."""
    deadline = time.monotonic() + within
    while True:
        result = check()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {within}s")
        await asyncio.sleep(0.02)


class ServerProcess:
    """The server with the ScriptAgent in a child process (for signals, kills and restarts); with
    `production`, the production agents instead (the real browser agent, its own Chromium)."""

    def __init__(
        self, data_dir: Path, rest: bool = False, production: bool = False, **env: str
    ) -> None:
        self.data_dir = data_dir
        self.env = env
        self.rest = rest  # also wait for the REST edge and read its port into `rest_port`
        self.module = "tests.support." + ("production_server" if production else "test_server")
        self.process: subprocess.Popen[str] | None = None
        self.port = 0
        self.rest_port = 0
        self.tail: collections.deque[str] = collections.deque()

    def start(self, timeout: float = 90.0) -> int:
        """Starts the process; its gRPC port once it serves. The bound is generous: on a
        loaded machine the imports alone took over 30 s."""
        env = (
            os.environ
            | {
                "OUTRIDER_DATA_DIR": str(self.data_dir),
                "OUTRIDER_PORT": "0",
                "OUTRIDER_REST_PORT": "0",
                "OUTRIDER_HOST": "127.0.0.1",
                "PYTHONUNBUFFERED": "1",
            }
            | self.env
        )
        self.process = subprocess.Popen(
            [sys.executable, "-m", self.module],
            cwd=REPO_ROOT,
            # a process group of its own: `kill_group` takes its Chromium with it
            start_new_session=self.module.endswith("production_server"),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.port = self._read_port(timeout)
        return self.port

    def _read_port(self, timeout: float) -> int:
        assert self.process is not None and self.process.stdout is not None
        deadline = time.monotonic() + timeout
        self.port = self.rest_port = 0
        seen: collections.deque[str] = collections.deque(maxlen=20)
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            seen.append(line)
            match = re.search(r"serving on [^:]+:(\d+)", line)
            if match:
                self.port = int(match.group(1))
            match = re.search(r"REST/SSE on \S+:(\d+)/v1", line)
            if match:
                self.rest_port = int(match.group(1))
            if self.port and (self.rest_port or not self.rest):
                return self.port
            if not line and self.process.poll() is not None:
                break
        said = "".join(seen).strip() or "nothing"
        raise RuntimeError(
            f"the server process did not start (exit status {self.process.poll()}); it said:\n"
            f"{said}"
        )

    def drain(self) -> None:
        """Reads the process's output from now on in a thread, keeping the last lines in
        `tail`, so a chatty server never blocks on a full pipe (its output is not `wait()`ed)."""
        assert self.process is not None and self.process.stdout is not None
        stdout, self.tail = self.process.stdout, collections.deque(maxlen=200)

        def read() -> None:
            with contextlib.suppress(ValueError, OSError):  # the pipe was closed
                for line in stdout:
                    self.tail.append(line)

        threading.Thread(target=read, daemon=True).start()

    def signal(self, signum: signal.Signals) -> None:
        assert self.process is not None
        self.process.send_signal(signum)

    def wait(self, timeout: float = 30.0) -> tuple[int, str]:
        assert self.process is not None and self.process.stdout is not None
        code = self.process.wait(timeout)
        return code, self.process.stdout.read()

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def kill_group(self) -> None:
        """SIGKILLs the server and every process of its group (its Chromium) at once, as when
        its machine is lost."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def close(self) -> None:
        """Kills the process (with its Chromium) if it still runs and releases its pipe."""
        if self.module.endswith("production_server"):
            self.kill_group()
        self.kill()
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()
