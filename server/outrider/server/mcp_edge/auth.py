"""The caller of every /mcp request, as on the other edges: a bearer key or a mapped client
certificate (security/authn), else 401. The principal goes into the request's state for the
tools, and, as the SDK's authenticated user, binds MCP sessions to it (a session is refused to
another principal as if it did not exist)."""

from __future__ import annotations

from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.types import ASGIApp, Receive, Scope, Send

from outrider.server.core.errors import OutriderError
from outrider.server.core.principals import Principal
from outrider.server.mcp_edge.guard import send_error
from outrider.server.security.authn import PEER_NAME_STATE, Keyring, authenticate
from outrider.server.telemetry.logs import bind_principal

PRINCIPAL_STATE = "principal"
_ISSUER = "outrider"


class AuthMiddleware:
    def __init__(self, app: ASGIApp, keyring: Keyring) -> None:
        self._app = app
        self._keyring = keyring

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope["headers"])
        raw = headers.get(b"authorization", b"").decode("latin-1") or None
        state = scope.setdefault("state", {})
        try:
            principal = authenticate(self._keyring, raw, state.get(PEER_NAME_STATE))
        except OutriderError as error:
            challenge = ((b"www-authenticate", b'Bearer realm="outrider"'),)
            await send_error(send, 401, error.message, challenge)
            return
        state[PRINCIPAL_STATE] = principal
        scope["user"] = AuthenticatedUser(_token(principal))
        bind_principal(principal.id)
        await self._app(scope, receive, send)


def _token(principal: Principal) -> AccessToken:
    """The principal as the SDK's access token (no key in it: the SDK only compares ids)."""
    return AccessToken(
        token="",
        client_id=principal.id,
        scopes=sorted(scope.value for scope in principal.scopes),
        subject=f"{principal.tenant}/{principal.id}",
        claims={"iss": _ISSUER},
    )


def principal_of_request(request: Any) -> Principal:
    """The principal AuthMiddleware put into the state of the HTTP request carrying a message."""
    state = getattr(request, "scope", {}).get("state", {})
    principal = state.get(PRINCIPAL_STATE)
    if not isinstance(principal, Principal):
        raise RuntimeError("an MCP request reached a tool without an authenticated principal")
    return principal
