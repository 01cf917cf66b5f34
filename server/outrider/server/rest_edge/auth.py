"""Authentication on every route but the open ones: the principal goes into `request.state`.

Under mutual TLS the verified client certificate's common name comes from the connection (see
`rest_edge.tls`), so a mapped certificate authenticates without a key.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from outrider.server.core.errors import OutriderError
from outrider.server.core.principals import Principal
from outrider.server.rest_edge.errors import error_response
from outrider.server.security.authn import PEER_NAME_STATE, Keyring, authenticate
from outrider.server.telemetry.logs import bind_principal

PRINCIPAL_STATE = "principal"


class AuthMiddleware:
    """`own_paths`: prefixes of an edge mounted here that authenticates its own requests."""

    def __init__(
        self,
        app: ASGIApp,
        keyring: Keyring,
        open_paths: frozenset[str],
        own_paths: tuple[str, ...] = (),
    ) -> None:
        self._app = app
        self._keyring = keyring
        self._open_paths = open_paths
        self._own_paths = own_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path in self._open_paths or under(path, self._own_paths):
            await self._app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        raw = headers.get(b"authorization", b"").decode("latin-1") or None
        state = scope.setdefault("state", {})
        try:
            state[PRINCIPAL_STATE] = authenticate(self._keyring, raw, state.get(PEER_NAME_STATE))
            bind_principal(state[PRINCIPAL_STATE].id)  # log lines of this request name the caller
        except OutriderError as error:
            await error_response(error)(scope, receive, send)
            return
        await self._app(scope, receive, send)


def under(path: str, prefixes: tuple[str, ...]) -> bool:
    """Whether `path` is one of `prefixes` or below one of them."""
    return any(path == prefix or path.startswith(prefix + "/") for prefix in prefixes)


def principal_of(request: Request) -> Principal:
    principal = request.state.principal
    assert isinstance(principal, Principal), "AuthMiddleware did not run"
    return principal
