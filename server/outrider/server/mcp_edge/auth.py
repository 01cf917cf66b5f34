"""The caller of every /mcp request, as on the other edges: a bearer key, an access token issued
for this MCP server (security/identity.py: its audience is /mcp's own URL) or a mapped client
certificate, else 401. The principal goes into the request's state for the tools, and, as the
SDK's authenticated user, binds MCP sessions to it (a session is refused to another principal
as if it did not exist).

With an issuer configured, /mcp is an OAuth resource server (resource.py): refusals carry the
Bearer challenge naming its metadata, and a token's tools/call that lacks the tool's scope is a
403 insufficient_scope before it reaches the tool, so the client can ask the IdP for more. Keys
get the tool's own error instead, as they always did.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from outrider.server.core.errors import OutriderError, PermissionDenied
from outrider.server.core.principals import Principal
from outrider.server.mcp_edge.guard import send_error
from outrider.server.mcp_edge.resource import ProtectedResource
from outrider.server.security.access import MCP_SCOPES, MCP_TOOLS
from outrider.server.security.authn import PEER_NAME_STATE, Keyring, authenticate_call, bearer
from outrider.server.security.identity import Door
from outrider.server.security.tokens import looks_like_jwt
from outrider.server.telemetry.logs import bind_principal

PRINCIPAL_STATE = "principal"
_ISSUER = "outrider"


class AuthMiddleware:
    def __init__(
        self, app: ASGIApp, keyring: Keyring, resource: ProtectedResource | None = None
    ) -> None:
        self._app = app
        self._keyring = keyring
        self._resource = resource

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope["headers"])
        raw = headers.get(b"authorization", b"").decode("latin-1") or None
        state = scope.setdefault("state", {})
        try:
            peer = state.get(PEER_NAME_STATE)
            principal = await authenticate_call(self._keyring, raw, peer, Door.MCP)
        except PermissionDenied as error:  # a token whose claims map to no scope
            await self._refuse(send, 403, error.message, "insufficient_scope", MCP_SCOPES)
            return
        except OutriderError as error:
            await self._refuse(send, 401, error.message, "invalid_token" if raw else None)
            return
        if self._resource is not None and _is_token(raw):
            receive, missing = await _missing_tool_scopes(scope, receive, principal)
            if missing:
                wanted = sorted({*(s.value for s in principal.scopes), *missing})
                message = f"this call needs the scopes {', '.join(missing)}"
                await self._refuse(send, 403, message, "insufficient_scope", wanted)
                return
        state[PRINCIPAL_STATE] = principal
        scope["user"] = AuthenticatedUser(_token(principal))
        bind_principal(principal.id)
        await self._app(scope, receive, send)

    async def _refuse(
        self,
        send: Send,
        status: int,
        message: str,
        error: str | None,
        scopes: tuple[str, ...] | list[str] = MCP_SCOPES,
    ) -> None:
        if self._resource is None:
            challenge = b'Bearer realm="outrider"'
        else:
            challenge = self._resource.challenge(error, scopes)
        await send_error(send, status, message, ((b"www-authenticate", challenge),))


def _is_token(authorization: str | None) -> bool:
    credential = bearer(authorization) if authorization else None
    return credential is not None and looks_like_jwt(credential)


async def _missing_tool_scopes(
    scope: Scope, receive: Receive, principal: Principal
) -> tuple[Receive, list[str]]:
    """The scopes the request's tools/call messages need and `principal` lacks, and a `receive`
    that hands the app the body this read."""
    if scope.get("method") != "POST":
        return receive, []
    body, more = bytearray(), True
    while more:
        message = await receive()
        if message["type"] != "http.request":  # the client left: the app learns it at once
            return _replaying([message], receive), []
        body += message.get("body", b"")
        more = message.get("more_body", False)
    needed = {s.value for name in _called_tools(bytes(body)) for s in MCP_TOOLS.get(name, ())}
    held = {s.value for s in principal.scopes}
    missing = [] if principal.is_admin else sorted(needed - held)
    return _replaying([{"type": "http.request", "body": bytes(body)}], receive), missing


def _called_tools(body: bytes) -> list[str]:
    try:
        parsed = json.loads(body)
    except ValueError:
        return []  # the SDK answers the parse error
    messages = parsed if isinstance(parsed, list) else [parsed]
    calls = [m for m in messages if isinstance(m, dict) and m.get("method") == "tools/call"]
    return [str(m["params"].get("name")) for m in calls if isinstance(m.get("params"), dict)]


def _replaying(queued: list[Message], receive: Receive) -> Receive:
    """The messages read ahead, then the real receive's."""

    async def replay() -> Message:
        return queued.pop(0) if queued else await receive()

    return replay


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
