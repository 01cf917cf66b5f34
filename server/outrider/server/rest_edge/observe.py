"""Every REST/SSE request observed: a SERVER span continuing the caller's `traceparent`,
request count and latency by route template and status, one access-log line (path only: no query
string, headers or bodies), and the /metrics endpoint."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from outrider.server.rest_edge.auth import route_path
from outrider.server.telemetry import metrics, tracing

access_log = logging.getLogger("outrider.access")
_QUIET_PATHS = frozenset({"/healthz", "/metrics"})  # probes and scrapes: no span, DEBUG line


async def metrics_endpoint(request: Request) -> Response:
    return Response(metrics.exposition(), media_type=metrics.CONTENT_TYPE)


class ObservingMiddleware:
    """`shown_path`: the path as spans and log lines show it (a secret in it, such as an
    answer link's token, left out)."""

    def __init__(self, app: ASGIApp, shown_path: Callable[[str], str] = lambda path: path) -> None:
        self._app = app
        self._shown_path = shown_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        method = scope["method"]
        root = str(scope.get("root_path", ""))  # OUTRIDER_PUBLIC_URL's prefix: not shown
        path = self._shown_path(route_path(scope))
        status = 500  # unless a response starts
        started = time.perf_counter()

        async def observed_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        span_or_not = (
            contextlib.nullcontext(trace.INVALID_SPAN)
            if path in _QUIET_PATHS
            else tracing.TRACER.start_as_current_span(
                f"{method} {path}",
                context=tracing.incoming(headers),
                kind=SpanKind.SERVER,
                attributes={"http.request.method": method, "url.path": path},
            )
        )
        with span_or_not as span:
            try:
                await self._app(scope, receive, observed_send)
            finally:
                route = _route_of(scope, root)
                span.update_name(f"{method} {route}")
                span.set_attribute("http.route", route)
                span.set_attribute("http.response.status_code", status)
                if status >= 500:
                    span.set_status(Status(StatusCode.ERROR))
                _record(scope, path, route, status, time.perf_counter() - started)


def _route_of(scope: Scope, root: str) -> str:
    """The matched route's template (under its mount, e.g. /console/runs/{runId}), so ids do
    not become metric labels; "unmatched" when only a mount (or nothing) matched."""
    route: Any = scope.get("route")
    path = getattr(route, "path", None)
    if not isinstance(path, str) or isinstance(route, Mount):
        return "unmatched"
    return str(scope.get("root_path", "")).removeprefix(root) + path


def _record(scope: Scope, path: str, route: str, status: int, seconds: float) -> None:
    method = scope["method"]
    metrics.http_request(method, route, status, seconds)
    client = scope.get("client")
    access_log.log(
        logging.DEBUG if path in _QUIET_PATHS else logging.INFO,
        "http %s %s %d %.1f ms",
        method,
        path,
        status,
        seconds * 1000,
        extra={
            "protocol": "http",
            "method": method,
            "path": path,
            "route": route,
            "status": status,
            "duration_ms": round(seconds * 1000, 1),
            "peer": f"{client[0]}:{client[1]}" if client else "",
        },
    )
