"""Security headers on every console response.

The Content-Security-Policy allows scripts, styles, images and connections from the console's
own origin only: no inline script or style (the templates have none; htmx is configured not to
add its indicator style and never evaluates strings), no third-party origin, no framing, forms
posted only here. A route may set its own stricter headers (artifacts); those are kept.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    )
)
_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    # No page sends its URL to another origin as a referrer; the answer-link pages (their URL
    # holds the token) send none at all (answer_link.without_referrer).
    "referrer-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
_PRIVATE = "no-store"  # pages show one tenant's runs: no shared or disk cache keeps them
_STATIC = "public, max-age=3600"
_HSTS = "max-age=31536000"


class SecurityHeadersMiddleware:
    def __init__(self, app: ASGIApp, static_prefix: str) -> None:
        self._app = app
        self._static_prefix = static_prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        extra = dict(_HEADERS)
        static = str(scope.get("path", "")).removeprefix(str(scope.get("root_path", "")))
        extra["cache-control"] = _STATIC if static.startswith(self._static_prefix) else _PRIVATE
        if scope.get("scheme") == "https":
            extra["strict-transport-security"] = _HSTS

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                added = [
                    (k.encode(), v.encode()) for k, v in extra.items() if k.encode() not in present
                ]
                message = {**message, "headers": [*message.get("headers", []), *added]}
            await send(message)

        await self._app(scope, receive, with_headers)
