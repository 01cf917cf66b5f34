"""What web browsers may do with the REST edge: nothing cross-site unless the operator allows it.

Two guards against pages on other sites (which matter most while authentication is off):
- POST bodies must be declared `application/json`. A browser sends such a request cross-site
  only after a CORS preflight; `text/plain`, form encodings or no Content-Type (which any page may
  send without one) are refused with 415 before any route runs.
- CORS is closed by default: no CORS headers at all, a preflight is refused with 403 and a
  request that changes something (POST, DELETE) with a foreign `Origin` is refused with 403.
  Origins listed in OUTRIDER_CORS_ORIGINS (or `*`) get the CORS headers. Credentials (cookies)
  are never allowed: callers authenticate with the Authorization header.
"""

from __future__ import annotations

from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

ANY_ORIGIN = "*"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_ALLOWED_METHODS = "GET, POST, DELETE"
_ALLOWED_HEADERS = (
    "authorization, content-type, idempotency-key, last-event-id, traceparent, tracestate, "
    "x-outrider-approval-events, a2a-version, a2a-extensions"
)
_EXPOSED_HEADERS = "idempotent-replayed, location, outrider-run, retry-after, www-authenticate"
_PREFLIGHT_MAX_AGE = "600"


def is_json_media_type(value: str) -> bool:
    """`application/json`, optionally with parameters; a charset, if named, must be UTF-8."""
    media_type, *parameters = (part.strip().lower() for part in value.split(";"))
    if media_type != "application/json":
        return False
    for parameter in parameters:
        name, _, given = parameter.partition("=")
        if name.strip() == "charset" and given.strip().strip('"') not in ("utf-8", "utf8"):
            return False
    return True


class BrowserGuardMiddleware:
    """`check_media`: false for an edge that refuses bodies that are not JSON itself, in its own
    error shape (the A2A edge: JSON-RPC errors); CORS is checked here for it all the same."""

    def __init__(
        self, app: ASGIApp, allowed_origins: tuple[str, ...], check_media: bool = True
    ) -> None:
        self._app = app
        self._any = ANY_ORIGIN in allowed_origins
        self._origins = frozenset(o.rstrip("/").lower() for o in allowed_origins)
        self._check_media = check_media

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        method = scope["method"]
        origin = headers.get("origin")
        refusal = self._refusal(method, origin, headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if origin is None or not self._allows(origin):
            await self._app(scope, receive, send)
            return
        await self._app(scope, receive, self._with_cors_headers(send, origin))

    def _refusal(self, method: str, origin: str | None, headers: dict[str, str]) -> Response | None:
        """The response that ends the request here, or None to let it through."""
        requested = headers.get("access-control-request-method")
        if method == "OPTIONS" and origin is not None and requested is not None:
            return self._preflight(origin, requested)
        if origin is not None and method not in _SAFE_METHODS and not self._allows(origin):
            return _error(403, "CORS_ORIGIN_NOT_ALLOWED", _origin_message(origin))
        if (
            self._check_media
            and method == "POST"
            and not is_json_media_type(headers.get("content-type", ""))
        ):
            return _error(
                415,
                "UNSUPPORTED_MEDIA_TYPE",
                "POST bodies must be sent with Content-Type: application/json",
            )
        return None

    def _preflight(self, origin: str, method: str) -> Response:
        if not self._allows(origin):
            return _error(403, "CORS_ORIGIN_NOT_ALLOWED", _origin_message(origin))
        if method.upper() not in _ALLOWED_METHODS.split(", "):
            return _error(403, "CORS_METHOD_NOT_ALLOWED", f"{method[:16]!r} is not allowed")
        headers = self._cors_headers(origin) | {
            "Access-Control-Allow-Methods": _ALLOWED_METHODS,
            "Access-Control-Allow-Headers": _ALLOWED_HEADERS,
            "Access-Control-Max-Age": _PREFLIGHT_MAX_AGE,
        }
        return Response(status_code=204, headers=headers)

    def _allows(self, origin: str) -> bool:
        return self._any or origin.rstrip("/").lower() in self._origins

    def _cors_headers(self, origin: str) -> dict[str, str]:
        if self._any:
            return {"Access-Control-Allow-Origin": ANY_ORIGIN}
        return {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}

    def _with_cors_headers(self, send: Send, origin: str) -> Send:
        extra = self._cors_headers(origin) | {"Access-Control-Expose-Headers": _EXPOSED_HEADERS}
        encoded = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in extra.items()]

        async def cors_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *encoded]}
            await send(message)

        return cors_send


def _origin_message(origin: str) -> str:
    return f"origin {origin[:80]!r} is not allowed (OUTRIDER_CORS_ORIGINS)"


def _error(status: int, reason: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"status": status, "reason": reason, "message": message}}, status)
