"""A site on 127.0.0.1 that counts the requests each path receives: what a test asserts about
side effects is counted where they land, not inferred from the server's own events."""

from __future__ import annotations

import collections
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class HitCounter:
    url: str = ""
    hits: collections.Counter[str] = field(default_factory=collections.Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, path: str) -> int:
        with self.lock:
            return self.hits[path]


@contextmanager
def hit_counter() -> Iterator[HitCounter]:
    counter = HitCounter()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            with counter.lock:
                counter.hits[self.path] += 1
            self.send_response(204)
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="hit-counter", daemon=True)
    thread.start()
    counter.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield counter
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
