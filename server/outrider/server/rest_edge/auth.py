"""Optional API-key authentication: `Authorization: Bearer <key>` on every route but /healthz."""

from __future__ import annotations

import hmac
from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send

from outrider.server.core.errors import Unauthenticated
from outrider.server.rest_edge.errors import error_response

OPEN_PATHS = frozenset({"/healthz"})
_DENIED = Unauthenticated("missing or invalid API key; send 'Authorization: Bearer <key>'")


def key_matches(header: str | None, keys: Sequence[str]) -> bool:
    """True when `header` is "Bearer <one of keys>"; compared in constant time."""
    if not header or not header.startswith("Bearer "):
        return False
    offered = header.removeprefix("Bearer ").strip().encode()
    return any(hmac.compare_digest(offered, key.encode()) for key in keys)


class ApiKeyMiddleware:
    def __init__(self, app: ASGIApp, keys: Sequence[str]) -> None:
        self._app = app
        self._keys = tuple(keys)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self._keys or scope["path"] in OPEN_PATHS:
            await self._app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        raw = headers.get(b"authorization", b"").decode("latin-1")
        if key_matches(raw, self._keys):
            await self._app(scope, receive, send)
            return
        await error_response(_DENIED)(scope, receive, send)
