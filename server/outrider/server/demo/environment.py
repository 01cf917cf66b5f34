"""Starts everything the demo needs: the site and corpus on loopback, their search index, and a
real Outrider server (a child process, `python -m outrider.server` via demo/child.py, which also
stops when the demo goes away) configured by OUTRIDER_*
variables to use the scripted demo model and to let exactly the site's port through the network
guard. Stopping sends the server SIGTERM, as an operator would."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from outrider.server.demo import SCENARIO, WEB_DIR
from outrider.server.demo.site import DemoSite
from outrider.server.front_door import Door, doors
from outrider.server.search.corpus import CorpusIndex
from outrider.server.search.corpus_cli import index_directory

START_TIMEOUT = 60.0  # seconds the server may take to say it is serving
_SERVING = re.compile(r"serving on (\S+):(\d+)")
_REST = re.compile(r"REST/SSE on (http://\S+)/v1")


class DemoError(Exception):
    """The demo could not start; the message says why."""


@dataclass(frozen=True)
class Ports:
    """Preferred ports; a busy one is replaced by a free one (0 always picks a free one)."""

    grpc: int = 50051
    rest: int = 8080
    web: int = 8000


@dataclass(frozen=True)
class _EveryDoor:
    """The demo server serves the console, MCP and A2A beside the API (their defaults)."""

    console: bool = True
    mcp: bool = True
    a2a: bool = True


@dataclass(frozen=True)
class Demo:
    target: str  # host:port of the gRPC server
    rest_url: str  # http://host:port of the REST/SSE edge
    web_url: str  # http://127.0.0.1:port of the demo site; /docs/ is the corpus
    data_dir: Path
    log_file: Path

    @property
    def doors(self) -> list[Door]:
        """The REST port's doors (API, console, MCP, A2A), as the server prints them."""
        return doors(_EveryDoor(), self.rest_url)


def available(port: int) -> int:
    """`port` when nothing listens on it, else 0 (a free port is picked at bind time)."""
    if port == 0:
        return 0
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return 0
    return port


def server_environment(site: DemoSite, ports: Ports, data_dir: Path) -> dict[str, str]:
    """The parent's environment with the demo's OUTRIDER_* settings on top."""
    corpus = data_dir / "corpus.sqlite3"
    return os.environ | {
        "OUTRIDER_HOST": "127.0.0.1",
        "OUTRIDER_PORT": str(available(ports.grpc)),
        "OUTRIDER_REST_ENABLED": "true",
        "OUTRIDER_REST_HOST": "127.0.0.1",
        "OUTRIDER_REST_PORT": str(available(ports.rest)),
        "OUTRIDER_DATA_DIR": str(data_dir),
        "OUTRIDER_API_KEYS": "",
        "OUTRIDER_MODEL": f"scripted:{SCENARIO}",
        "OUTRIDER_ROLE_MODELS": "{}",
        # Callers may name the demo's scenario (or another in its folder) and nothing else.
        "OUTRIDER_MODELS": "",
        "OUTRIDER_SCRIPTED_MODEL_DIRS": str(SCENARIO.parent),
        "OUTRIDER_NETWORK_ALLOW": f"127.0.0.1:{site.port}",
        "OUTRIDER_RESEARCH_SEARCH_PROVIDERS": "corpus",
        "OUTRIDER_RESEARCH_CORPUS_INDEX": str(corpus),
        "OUTRIDER_RESEARCH_PER_HOST_DELAY": "0",
        "OUTRIDER_RESEARCH_JS_FALLBACK": "false",
        # The demo's runs are disposable: when the demo stops (Ctrl-C reaches the server too),
        # a run waiting for the person is cancelled at once rather than given 30 s to finish.
        "OUTRIDER_SHUTDOWN_GRACE": "1",
    }


def build_corpus(site: DemoSite, data_dir: Path) -> None:
    index_directory(CorpusIndex(data_dir / "corpus.sqlite3"), WEB_DIR / "docs", f"{site.url}/docs")


def wait_until_serving(child: subprocess.Popen[str], log_file: Path) -> tuple[str, str]:
    """(gRPC target, REST base URL) from the server's first lines; DemoError if it exits or
    stays silent for START_TIMEOUT seconds. A thread keeps draining its output afterwards."""
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_drain, args=(child, lines), daemon=True).start()
    target = rest = ""
    deadline = time.monotonic() + START_TIMEOUT
    while not (target and rest):
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise DemoError(f"the demo server did not start in {START_TIMEOUT:.0f} s") from None
        if line is None:
            child.wait()
            tail = "\n".join(log_file.read_text(errors="replace").splitlines()[-15:])
            raise DemoError(f"the demo server exited with code {child.returncode}:\n{tail}")
        if found := _SERVING.search(line):
            target = f"{found.group(1)}:{found.group(2)}"
        if found := _REST.search(line):
            rest = found.group(1)
    return target, rest


def _drain(child: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
    assert child.stdout is not None
    for line in child.stdout:
        lines.put(line)
    lines.put(None)


def stop_server(child: subprocess.Popen[str]) -> None:
    if child.stdin is not None:
        child.stdin.close()  # the child's own watch would stop it too
    if child.poll() is None:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=40)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


@contextmanager
def demo_environment(ports: Ports = Ports(), data_dir: Path | None = None) -> Iterator[Demo]:
    """The running demo; everything stops (and a temporary data directory goes) on exit."""
    temporary = data_dir is None
    data_dir = Path(tempfile.mkdtemp(prefix="outrider-demo-")) if data_dir is None else data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    site = DemoSite(WEB_DIR, available(ports.web))
    site.start()
    log_file = data_dir / "server.log"
    try:
        build_corpus(site, data_dir)
        with log_file.open("a") as log:
            child = subprocess.Popen(
                [sys.executable, "-m", "outrider.server.demo.child"],  # outrider.server + a leash
                env=server_environment(site, ports, data_dir),
                stdout=subprocess.PIPE,
                stderr=log,
                stdin=subprocess.PIPE,  # closed when the demo ends, however it ends
                text=True,
                start_new_session=True,  # a Ctrl-C at the terminal reaches the demo, not the server
            )
        try:
            target, rest = wait_until_serving(child, log_file)
            yield Demo(target, rest, site.url, data_dir, log_file)
        finally:
            stop_server(child)
    finally:
        site.stop()
        if temporary:
            shutil.rmtree(data_dir, ignore_errors=True)
