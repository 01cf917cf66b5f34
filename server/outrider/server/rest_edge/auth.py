"""Authentication on every route but the open ones: the principal goes into `request.state`.

Under mutual TLS the verified client certificate's common name comes from the connection (see
`rest_edge.tls`), so a mapped certificate authenticates without a key.
"""

from __future__ import annotations

import functools

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from outrider.server.core.errors import OutriderError
from outrider.server.core.principals import Principal
from outrider.server.core.runs.stream_checks import Reauthenticate
from outrider.server.rest_edge.errors import error_response
from outrider.server.security.authn import (
    PEER_NAME_STATE,
    Keyring,
    authenticate,
    authenticate_call,
)
from outrider.server.security.identity import Door
from outrider.server.telemetry.logs import bind_principal

PRINCIPAL_STATE = "principal"
RECHECK_STATE = "reauthenticate"  # checks the request's credential again (for its stream)


class AuthMiddleware:
    def __init__(self, app: ASGIApp, keyring: Keyring, open_paths: frozenset[str]) -> None:
        self._app = app
        self._keyring = keyring
        self._open_paths = open_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = route_path(scope)
        if scope["type"] != "http" or path in self._open_paths:
            await self._app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        raw = headers.get(b"authorization", b"").decode("latin-1") or None
        state = scope.setdefault("state", {})
        peer = state.get(PEER_NAME_STATE)
        try:
            state[PRINCIPAL_STATE] = await authenticate_call(self._keyring, raw, peer, Door.REST)
            state[RECHECK_STATE] = functools.partial(
                authenticate, self._keyring, raw, peer, Door.REST
            )
            bind_principal(state[PRINCIPAL_STATE].id)  # log lines of this request name the caller
        except OutriderError as error:
            await error_response(error)(scope, receive, send)
            return
        await self._app(scope, receive, send)


def route_path(scope: Scope) -> str:
    """The request's path below the app's root path (OUTRIDER_PUBLIC_URL's prefix, or a mount),
    which is the path the routes and these tables name."""
    path, root = str(scope.get("path", "")), str(scope.get("root_path", ""))
    return path[len(root) :] if root and path.startswith(root + "/") else path


def principal_of(request: Request) -> Principal:
    principal = request.state.principal
    assert isinstance(principal, Principal), "AuthMiddleware did not run"
    return principal


def reauthentication_of(request: Request) -> Reauthenticate:
    recheck: Reauthenticate = getattr(request.state, RECHECK_STATE)
    return recheck
