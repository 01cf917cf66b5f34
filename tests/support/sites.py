"""Serves the fixture websites under tests/fixtures/sites on 127.0.0.1 at a random port."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

SITES_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "sites"


class _QuietHandler(SimpleHTTPRequestHandler):
    """Static files; a POST is answered like a GET of its path, its body read and dropped (so
    form submissions work without putting field values into URLs)."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        """`/redirect?to=URL` answers 302 to URL; everything else is a static file."""
        parts = urlsplit(self.path)
        if parts.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", parse_qs(parts.query)["to"][0])
            self.end_headers()
            return
        super().do_GET()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.do_GET()


@contextmanager
def fixture_sites(root: Path = SITES_DIR) -> Iterator[str]:
    """Yields the base URL, e.g. "http://127.0.0.1:41234", while the server runs."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="fixture-sites", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
