"""The /mcp endpoint: the SDK's streamable HTTP session manager serving outrider.mcp's server,
behind the Host/Origin guard and authentication. Mounted by the REST app, which enters
`running()` in its lifespan.

Both protocol eras are served: clients of the initialize handshake (up to 2025-11-25) get
stateful sessions (bound to their principal) whose tool calls may push elicitation requests;
2026-07-28 clients send self-contained requests, and questions come back as input requests
whose sealed state any replica can open (the key derives from the page-token key replicas
share).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.request_state import RequestStateSecurity
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from outrider.mcp.server import build_server
from outrider.server.core import paging
from outrider.server.core.runs import RunManager
from outrider.server.mcp_edge.auth import AuthMiddleware, principal_of_request
from outrider.server.mcp_edge.backend import CoreBackend
from outrider.server.mcp_edge.guard import HostOriginGuard
from outrider.server.security.authn import Keyring
from outrider.server.settings import Settings

MOUNT_PATH = "/mcp"
_STATE_SECONDS_MIN = 600.0  # a question's think time per round, at least the SDK's default


class McpEdge:
    def __init__(self, runs: RunManager, settings: Settings, keyring: Keyring) -> None:
        self._runs = runs
        security = RequestStateSecurity(
            keys=[_state_key(settings)],
            ttl=max(_STATE_SECONDS_MIN, 2 * settings.interaction_ttl),
            bind_principal=_bound_principal,
        )
        self.server = build_server(self._backend_of, _version(), security)
        self._manager = StreamableHTTPSessionManager(
            self.server,
            # The guard checks hosts and origins (with our settings); the SDK still checks
            # POST content types.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        handler = StreamableHTTPASGIApp(self._manager)
        self.app: ASGIApp = HostOriginGuard(AuthMiddleware(handler, keyring), settings)

    def _backend_of(self, ctx: ServerRequestContext[Any, Any]) -> CoreBackend:
        return CoreBackend(self._runs, principal_of_request(ctx.request))

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The session manager's life (the REST app's lifespan): sessions end with it."""
        async with self._manager.run():
            yield


def _bound_principal(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """A request state opens only for the principal it was made for."""
    principal = principal_of_request(ctx.request)
    return f"{principal.tenant}/{principal.id}"


def _state_key(settings: Settings) -> bytes:
    secret = settings.page_token_secret
    signing = paging.load_key(secret.get_secret_value() if secret else None, settings.data_dir)
    return hmac.new(signing, b"outrider mcp request state", hashlib.sha256).digest()


def _version() -> str:
    try:
        return version("outrider")
    except PackageNotFoundError:  # running from a source tree
        return "0"
