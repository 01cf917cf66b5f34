"""The fixture web for research benchmarks, served by a child process (so the server does not
share the benchmark's interpreter) with a listen backlog deep enough for 32 clients at once, and
the scenario files with $WEB filled in. `python -m bench.research_web` runs the server."""

from __future__ import annotations

import contextlib
import functools
import re
import subprocess
import sys
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
WEB_DIR = REPO_ROOT / "tests" / "fixtures" / "web"
SCENARIOS = REPO_ROOT / "tests" / "fixtures" / "scenarios"


@contextlib.contextmanager
def web_server() -> Iterator[str]:
    """Yields the base URL of the fixture web, served by a child process."""
    process = subprocess.Popen(
        [sys.executable, "-u", "-m", "bench.research_web"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        match = re.search(r"port (\d+)", process.stdout.readline())
        if match is None:
            raise RuntimeError("http.server did not report its port")
        yield f"http://127.0.0.1:{match.group(1)}"
    finally:
        process.terminate()
        process.wait(10)
        if process.stdout is not None:
            process.stdout.close()


def fixture_urls(base: str) -> list[str]:
    """Every public page of the fixture web (robots.txt disallows /private/)."""
    paths = [
        p.relative_to(WEB_DIR).as_posix()
        for p in sorted(WEB_DIR.rglob("*"))
        if p.is_file() and p.name != "robots.txt"
    ]
    return [f"{base}/{path}" for path in paths if not path.startswith("private/")]


def render(scenario: str, base: str, into: Path) -> Path:
    into.write_text((SCENARIOS / scenario).read_text().replace("$WEB", base))
    return into


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default 5 drops connections when 32 clients arrive at once
    daemon_threads = True


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve() -> None:
    server = _Server(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(WEB_DIR)))
    print(f"serving on port {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    serve()
