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
        if parts.path == "/rows":
            self._send_html(rows_page(int(parse_qs(parts.query)["n"][0])))
            return
        if parts.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", parse_qs(parts.query)["to"][0])
            self.end_headers()
            return
        super().do_GET()

    def _send_html(self, html: str) -> None:
        body = html.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.do_GET()


def rows_page(count: int) -> str:
    """A generated page of `count` rows, each with a link, an input and a button."""
    rows = "".join(
        f'<tr id="row-{i}"><td><a href="#row-{i}">Item {i}</a></td>'
        f'<td><input aria-label="Qty {i}"></td>'
        f"<td><button onclick=\"document.getElementById('status').textContent='Added {i}'\">"
        f"Add {i}</button></td></tr>"
        for i in range(count)
    )
    return (
        f"<!doctype html><html><head><title>{count} rows</title></head><body>"
        f'<h1>Inventory</h1><p id="status" role="status"></p><table>{rows}</table></body></html>'
    )


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
