"""The /mcp endpoint. The REST port's composer (rest_port.py) mounts it with its lifespan (it
serves while the server runs) and `stop` (called as the server begins to stop).

Both protocol eras are served: clients of the initialize handshake (up to 2025-11-25) get
stateful sessions (bound to their principal) whose tool calls may push elicitation requests;
2026-07-28 clients send self-contained requests, and questions come back as input requests
whose sealed state any replica can open (the key derives from the signing key replicas share).

The SDK takes seconds to import (its protocol models of every revision): it is loaded in a
thread once the server starts, so that neither the start nor the event loop waits for it; a
request arriving earlier waits until it is ready.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from starlette.routing import BaseRoute
from starlette.types import Receive, Scope, Send

from outrider.server.core.runs.manager import RunManager
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.mcp_edge.guard import body_refusal
from outrider.server.mcp_edge.resource import protected_resource
from outrider.server.security.access import MCP_PATH
from outrider.server.security.authn import Keyring
from outrider.server.settings import Settings

if TYPE_CHECKING:
    from outrider.server.mcp_edge.serving import McpServing

log = logging.getLogger(__name__)
MOUNT_PATH = MCP_PATH
MAX_BODY_BYTES = 4 * 1024 * 1024  # what the SDK's transport takes by default


class McpEdge:
    def __init__(
        self,
        runs: RunManager,
        settings: Settings,
        keyring: Keyring,
        sessions: SessionManager | None = None,
    ) -> None:
        self._made = (runs, settings, keyring, sessions)
        self._serving: asyncio.Future[McpServing] | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def metadata_routes(self) -> list[BaseRoute]:
        """Its Protected Resource Metadata (resource.py), when it takes the IdP's tokens."""
        resource = protected_resource(self._made[2])
        return resource.routes() if resource is not None else []

    @property
    def app(self) -> McpEdge:
        """The ASGI app of /mcp (an object, not a function: Starlette mounts it as ASGI)."""
        return self

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self._serving is not None, "the MCP edge was not started"
        try:
            serving = await asyncio.shield(self._serving)
        except _StoppedFirst:
            refusal = body_refusal(503, "SHUTTING_DOWN", "the server is shutting down")
        except Exception:  # the SDK failed to load: logged as it happened
            refusal = body_refusal(503, "MCP_UNAVAILABLE", "the MCP edge did not start")
        else:
            await serving.app(scope, receive, send)
            return
        await refusal(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """While the server runs; the server's `stop` calls `stop` first, with its limit."""
        await self.start()
        try:
            yield
        finally:
            await self.stop(0)

    async def start(self) -> None:
        """Starts loading the SDK and serving, in a task of its own (the session manager's task
        group must end where it began, whichever task stops the edge)."""
        self._serving = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._serve(self._serving), name="outrider-mcp")

    async def _serve(self, ready: asyncio.Future[McpServing]) -> None:
        try:
            module = await asyncio.to_thread(importlib.import_module, f"{__package__}.serving")
            serving: McpServing = module.McpServing(*self._made)
            async with serving.running():
                ready.set_result(serving)
                await serving.stopping.wait()
        except Exception as error:
            log.exception("the MCP edge could not start; /mcp answers with errors")
            if not ready.done():
                ready.set_exception(error)
            raise

    async def stop(self, limit: float) -> None:
        """Once no request is served (tool calls end with their runs, which a stopping server
        ends; at most `limit` seconds), every session ends, with its idle event stream."""
        if self._task is None or self._serving is None:
            return
        if not self._serving.done():  # requests waiting for the SDK are answered 503
            self._serving.set_exception(_StoppedFirst())
            self._serving.exception()  # seen here: no "never retrieved" when nobody waited
            self._task.cancel()
        else:
            with contextlib.suppress(Exception):
                await (await self._serving).drain(limit)
        await asyncio.gather(self._task, return_exceptions=True)


class _StoppedFirst(Exception):
    """The server stopped before the SDK was loaded."""
