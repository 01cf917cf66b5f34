"""`python -m outrider.server` (the production entry point) as a child process, configured only
through environment variables, its log written to a file."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.harness import REPO_ROOT


class ProductionServer:
    def __init__(self, data_dir: Path, env: dict[str, str], rest: bool = True) -> None:
        self.log_path = data_dir / "server.log"
        self.grpc_port = 0
        self.rest_port = 0
        self.metrics_port = 0
        self._wants_metrics_port = "OUTRIDER_METRICS_PORT" in env
        self._wants_rest = rest
        data_dir.mkdir(parents=True, exist_ok=True)
        base = {
            "OUTRIDER_DATA_DIR": str(data_dir),
            "OUTRIDER_HOST": "127.0.0.1",
            "OUTRIDER_PORT": "0",
            "OUTRIDER_REST_PORT": "0",
            "PYTHONUNBUFFERED": "1",
        }
        # The test's own OTEL_* settings must not leak in: only `env` configures the child.
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        self._log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "outrider.server"],
            cwd=REPO_ROOT,
            env=inherited | base | env,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self._ready():
            line = self.process.stdout.readline()
            if not line and self.process.poll() is not None:
                break
            if match := re.search(r"serving on [^:]+:(\d+)", line):
                self.grpc_port = int(match.group(1))
            if match := re.search(r"REST/SSE on http://[^:]+:(\d+)", line):
                self.rest_port = int(match.group(1))
            if match := re.search(r"metrics on http://[^:]+:(\d+)", line):
                self.metrics_port = int(match.group(1))
        if not self._ready():
            raise RuntimeError(f"the server did not start:\n{self.log_path.read_text()}")

    def _ready(self) -> bool:
        wanted = (
            self.grpc_port,
            self.rest_port or not self._wants_rest,
            self.metrics_port or not self._wants_metrics_port,
        )
        return all(wanted)

    def stop(self, timeout: float = 60.0) -> int:
        """SIGTERM, then the exit code (the process flushes its spans on the way out)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout)
        self.close()
        return code

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._log.close()
