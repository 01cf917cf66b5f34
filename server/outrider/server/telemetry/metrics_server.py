"""/metrics on a port of its own (OUTRIDER_METRICS_PORT): no API key, for scrapers inside the
cluster, and still there when the REST edge is disabled. Served by prometheus-client's small
threaded HTTP server, off the event loop."""

from __future__ import annotations

import threading
from wsgiref.simple_server import WSGIServer

from prometheus_client import start_http_server

from outrider.server.telemetry.metrics import REGISTRY


class MetricsServer:
    """`start()` returns the bound port; `stop()` is idempotent."""

    def __init__(self, host: str, port: int) -> None:
        self._host = host
        self._port = port
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    def start(self) -> int:
        server, self._thread = start_http_server(self._port, self._host, REGISTRY)
        self._server = server
        self.port = server.server_port
        return self.port

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(5)
