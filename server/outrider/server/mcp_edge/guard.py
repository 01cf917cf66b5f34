"""Against DNS rebinding and other sites' pages: /mcp answers only requests addressed to its
allowed hosts and refuses pages of other origins, on every method (the MCP transport's rule).

A page on evil.example whose name resolves to 127.0.0.1 sends `Host: evil.example` (421 here)
and, on POSTs and cross-origin reads, `Origin: http://evil.example` (403). Allowed hosts are
OUTRIDER_MCP_ALLOWED_HOSTS, else the loopback names (and OUTRIDER_PUBLIC_URL's name) when the
REST edge binds loopback, else any host (a server reachable on a network is reachable without
rebinding; its keys protect it).
Allowed origins are those of the allowed hosts (or of the request's own host when any host is
allowed) and OUTRIDER_CORS_ORIGINS.
"""

from __future__ import annotations

import ipaddress
import json
from urllib.parse import urlsplit

from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from outrider.server.settings import Settings

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def allowed_hosts(settings: Settings) -> tuple[str, ...] | None:
    """The Host values answered; None for any. A loopback server also answers the name of
    OUTRIDER_PUBLIC_URL (a reverse proxy on the same machine passes it on)."""
    if settings.mcp_allowed_hosts:
        return tuple(h.lower() for h in settings.mcp_allowed_hosts)
    if not _is_loopback(settings.rest_host):
        return None
    public = urlsplit(settings.public_url or "").hostname
    if not public:
        return LOOPBACK_NAMES
    return (*LOOPBACK_NAMES, f"[{public}]" if ":" in public else public)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_matches(value: str, allowed: tuple[str, ...]) -> bool:
    """`value` ("name" or "name:port") against entries naming a host (any port) or a host:port."""
    value = value.lower()
    name = value.rsplit(":", 1)[0] if not value.endswith("]") and ":" in value else value
    return value in allowed or name in allowed


async def send_error(
    send: Send, status: int, message: str, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    """A JSON-RPC error without an id (no message was read), with the HTTP status."""
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    ).encode()
    start = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": [*start, *headers]})
    await send({"type": "http.response.body", "body": body})


def body_refusal(status: int, reason: str, message: str) -> Response:
    """A request refused before its body was read whole (rest_edge/body_limits.py, and while
    the server stops): invalid request, or a server error (-32000) for a 5xx."""
    code = -32000 if status >= 500 else -32600
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    return JSONResponse(body, status)


class HostOriginGuard:
    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self._app = app
        self._hosts = allowed_hosts(settings)
        origins = settings.cors_origins
        self._any_origin = "*" in origins
        self._origins = frozenset(o.rstrip("/").lower() for o in origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if self._hosts is not None and not host_matches(host, self._hosts):
            await send_error(send, 421, f"this server does not answer for host {host[:80]!r}")
            return
        origin = headers.get("origin")
        if origin is not None and not self._allows(origin, host):
            await send_error(send, 403, f"origin {origin[:80]!r} is not allowed")
            return
        await self._app(scope, receive, send)

    def _allows(self, origin: str, host: str) -> bool:
        if self._any_origin or origin.rstrip("/").lower() in self._origins:
            return True
        netloc = urlsplit(origin).netloc.lower()
        if not netloc:
            return False
        if self._hosts is None:
            return netloc == host.lower()
        return host_matches(netloc, self._hosts)
