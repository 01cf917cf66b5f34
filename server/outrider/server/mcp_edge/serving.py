"""What serves /mcp once the SDK is loaded: its streamable HTTP session manager serving
outrider.mcp's server, behind the Host/Origin guard and authentication (app.McpEdge loads this
module, and the SDK with it, off the event loop).

Both protocol eras are served: clients of the initialize handshake (up to 2025-11-25) get
stateful sessions (bound to their principal) whose tool calls may push elicitation requests;
2026-07-28 clients send self-contained requests, and questions come back as input requests
whose sealed state any replica can open (the key derives from the page-token key replicas
share).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.context import CallNext
from mcp.server.request_state import RequestStateSecurity
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from outrider.mcp.server import build_server
from outrider.server.core import paging
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.mcp_edge.auth import AuthMiddleware, principal_of_request
from outrider.server.mcp_edge.backend import CoreBackend
from outrider.server.mcp_edge.guard import HostOriginGuard
from outrider.server.mcp_edge.resource import protected_resource
from outrider.server.security.authn import Keyring
from outrider.server.settings import Settings

log = logging.getLogger(__name__)
_LAST_RESPONSE = 0.2  # seconds for the last call's response to leave before sessions close
_STATE_SECONDS_MIN = 600.0  # a question's think time per round, at least the SDK's default


class McpServing:
    def __init__(
        self,
        runs: RunManager,
        settings: Settings,
        keyring: Keyring,
        sessions: SessionManager | None = None,
    ) -> None:
        self._runs = runs
        self._sessions = sessions
        security = RequestStateSecurity(
            keys=[_state_key(runs.signing_key)],
            ttl=max(_STATE_SECONDS_MIN, 2 * settings.interaction_ttl),
            bind_principal=_bound_principal,
        )
        self.server = build_server(self._backend_of, _version(), security)
        self._requests = 0  # MCP requests being served (a tool call lasts as long as its run)
        self._idle = asyncio.Event()
        self._idle.set()
        self.stopping = asyncio.Event()  # set once drained: `running` may end
        self.server.middleware.insert(0, self._counted)
        self._manager = StreamableHTTPSessionManager(
            self.server,
            # The guard checks hosts and origins (with our settings); the SDK still checks
            # POST content types.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        handler = StreamableHTTPASGIApp(self._manager)
        authenticated = AuthMiddleware(handler, keyring, protected_resource(keyring))
        self.app: ASGIApp = HostOriginGuard(authenticated, settings)

    def _backend_of(self, ctx: ServerRequestContext[Any, Any]) -> CoreBackend:
        principal = principal_of_request(ctx.request)
        return CoreBackend(self._runs, principal, _origin(ctx.request), self._sessions)

    async def _counted(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        if ctx.request_id is None:  # a notification
            return await call_next(ctx)
        self._requests += 1
        self._idle.clear()
        try:
            return await call_next(ctx)
        finally:
            self._requests -= 1
            if not self._requests:
                self._idle.set()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The session manager's life: when it ends, every session and its streams end."""
        async with self._manager.run():
            yield

    async def drain(self, limit: float) -> None:
        """Waits (at most `limit` seconds) until no request is served, then lets `running` end."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(limit):
                await self._idle.wait()
        await asyncio.sleep(_LAST_RESPONSE)
        self.stopping.set()


def _bound_principal(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """A request state opens only for the principal it was made for."""
    principal = principal_of_request(ctx.request)
    return f"{principal.tenant}/{principal.id}"


def _origin(request: Any) -> str:
    """scheme://host[:port] and mount prefix of the HTTP request carrying an MCP message (the
    host passed the guard: the caller reached this server there)."""
    url = getattr(request, "url", None)
    if url is None:
        return ""
    return f"{url.scheme}://{url.netloc}{request.scope.get('root_path', '')}"


def _state_key(signing_key: bytes) -> bytes:
    """Seals request states; derived from the signing key replicas share (a retry may reach
    any of them)."""
    return paging.derived_key(signing_key, "mcp request state")


def _version() -> str:
    try:
        return version("outrider")
    except PackageNotFoundError:  # running from a source tree
        return "0"
