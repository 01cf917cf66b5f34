"""The demo website: static files on 127.0.0.1, a form POST answered like a GET of its path."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class _Handler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the demo's terminal shows the agent's steps, not access logs."""

    def do_POST(self) -> None:
        # The body (the typed form values) is read and dropped, never logged or stored.
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.do_GET()


class DemoSite:
    """Serves `root` on 127.0.0.1:`port` (0 picks a free port) in a background thread."""

    def __init__(self, root: Path, port: int) -> None:
        handler = functools.partial(_Handler, directory=str(root))
        self._server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="outrider-demo-site", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
