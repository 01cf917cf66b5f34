"""The production server (real browser agent, real Chromium) in its own process, for the browser
benchmarks: `python -m bench.browser_server`, configured by OUTRIDER_* variables like the real one.

One addition, made here and not in the product: a scenario file with a top-level
`bench_model_delay: <seconds>` gets a model whose actor turns sleep that long before answering
(a simulated model latency). The model registry is wrapped in this process only.

`ServerProcess` starts it with a private TMPDIR and data directory, so that what Chromium and
Playwright leave behind can be told apart from other users of the machine.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from outrider.server.models import registry
from outrider.server.models.base import ChatModel, ModelReply, ModelRequest

REPO_ROOT = Path(__file__).resolve().parents[1]
DELAY_KEY = "bench_model_delay"
DELAYED_ROLES = frozenset({"actor"})


@dataclass
class DelayedModel:
    """A model whose actor turns take `delay` seconds longer."""

    inner: ChatModel
    delay: float

    @property
    def name(self) -> str:
        return self.inner.name

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def generate(self, request: ModelRequest) -> ModelReply:
        if request.role in DELAYED_ROLES:
            await asyncio.sleep(self.delay)
        return await self.inner.generate(request)


_resolve = registry.resolve_model


def _resolve_with_delay(spec: str, *args: Any, **kwargs: Any) -> ChatModel:
    """registry.resolve_model (whatever else it takes), plus the delay a scenario asks for."""
    model = _resolve(spec, *args, **kwargs)
    provider, _, name = spec.partition(":")
    if provider != "scripted":
        return model
    delay = float((yaml.safe_load(Path(name).read_text()) or {}).get(DELAY_KEY, 0))
    return DelayedModel(model, delay) if delay > 0 else model


def main() -> None:
    from outrider.server.__main__ import serve
    from outrider.server.agents import production_agents
    from outrider.server.settings import Settings

    registry.resolve_model = _resolve_with_delay
    settings = Settings()
    logging.basicConfig(level=settings.log_level.upper())
    asyncio.run(serve(settings, production_agents(settings)))


class ServerProcess:
    """The benchmark server as a child process with its own data dir and TMPDIR."""

    def __init__(self, allow: str, max_runs: int = 512, root: Path = REPO_ROOT, **env: str) -> None:
        """`root`: the checkout whose server runs (another commit's tree, for a before/after)."""
        self.root = root
        self.dir = Path(tempfile.mkdtemp(prefix="bench-browser-server-"))
        self.tmp = self.dir / "tmp"
        self.tmp.mkdir()
        self._log_path = self.dir / "server.log"
        self._env = (
            os.environ
            | {
                "OUTRIDER_DATA_DIR": str(self.dir / "data"),
                "OUTRIDER_HOST": "127.0.0.1",
                "OUTRIDER_PORT": "0",
                "OUTRIDER_MAX_CONCURRENT_RUNS": str(max_runs),
                "OUTRIDER_NETWORK_ALLOW": allow,
                "OUTRIDER_LOG_LEVEL": "WARNING",
                "OUTRIDER_REST_ENABLED": "false",  # gRPC only: no fixed REST port to collide on
                "OUTRIDER_SHUTDOWN_GRACE": "10",
                "PYTHONUNBUFFERED": "1",
                "TMPDIR": str(self.tmp),
            }
            | ({"PYTHONPATH": f"{root / 'server'}:{root / 'client'}"} if root != REPO_ROOT else {})
            | env
        )
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        with self._log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bench.browser_server"],
                cwd=self.root,
                env=self._env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.log().splitlines():
                if "serving on" in line:
                    self.port = int(line.rsplit(":", 1)[1])
                    return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"the benchmark server did not start:\n{self.log()}")

    def log(self) -> str:
        return self._log_path.read_text(errors="replace") if self._log_path.exists() else ""

    def stop(self, timeout: float = 60.0) -> int:
        """SIGTERM, as an operator would stop it; returns the exit code."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
            raise RuntimeError(f"the benchmark server did not stop within {timeout} s") from None

    def cleanup(self) -> None:
        """Stops the server if it still runs and removes its directory."""
        if self.process is not None and self.process.poll() is None:
            self.stop()
        log = self.log()
        if "Traceback" in log or "ERROR" in log:
            tail = "\n".join(log.splitlines()[-60:])
            print(f"  the benchmark server logged errors; the end of its log:\n{tail}")
        shutil.rmtree(self.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
