"""The REST port's server (the API, the console, the A2A agent, MCP): uvicorn in the caller's
event loop, serving the application outrider.server.rest_port composes."""

from __future__ import annotations

import asyncio
import contextlib
import math
import socket
from collections.abc import Awaitable, Callable, Iterator, Sequence

import uvicorn
from starlette.types import ASGIApp

from outrider.server.core.shutdown import longest_shutdown
from outrider.server.ports import bind_listeners
from outrider.server.rest_edge.tls import uvicorn_tls
from outrider.server.settings import Settings


class _Uvicorn(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """Signals belong to the process's own handlers, which stop both edges in order."""
        yield


class RestServer:
    """`start()` returns the bound port; `stop()` (idempotent) closes the listener, lets streams
    end for the grace period, then cancels them. `stopping`: called (with the longest the stop
    waits for requests) as it begins, to end requests that would otherwise stay open."""

    def __init__(
        self,
        settings: Settings,
        app: ASGIApp,
        stopping: Sequence[Callable[[float], Awaitable[None]]] = (),
    ) -> None:
        config = uvicorn.Config(
            app,
            host=settings.rest_host,
            port=settings.rest_port,
            # Requests arrive without OUTRIDER_PUBLIC_URL's path prefix (a proxy stripped it);
            # links, redirects and cookies the pages make must carry it again.
            root_path=settings.public_path,
            lifespan="on",  # the edges' (rest_port.MountedEdge.lifespan)
            log_config=None,
            access_log=False,
            server_header=False,
            # Streams end with their runs' endings (RunManager.shutdown); cut only after that.
            timeout_graceful_shutdown=math.ceil(longest_shutdown(settings.shutdown_grace)) + 5,
            **uvicorn_tls(settings),
        )
        self._config = config
        self._settings = settings
        self._stopping = stopping
        self._server = _Uvicorn(config)
        self._task: asyncio.Task[None] | None = None
        self._sockets: list[socket.socket] = []
        self.port = 0

    def bind(self) -> None:
        """Takes the port now (PortInUse if another process holds it), so that the service
        can fail before anything else starts. `start()` binds if this was not called."""
        if not self._sockets:
            settings = self._settings
            self._sockets = bind_listeners(
                "REST/SSE", settings.rest_host, settings.rest_port, "OUTRIDER_REST_PORT"
            )

    def release(self) -> None:
        """Closes the sockets of `bind()` when the service gives up before `start()`."""
        for sock in self._sockets:
            sock.close()
        self._sockets = []

    async def start(self) -> int:
        self.bind()
        serving = self._server.serve(sockets=self._sockets)
        self._task = asyncio.create_task(serving, name="outrider-rest")
        while not self._server.started:
            if self._task.done():
                self._task.result()
                raise RuntimeError("the REST server did not start")
            await asyncio.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self.port

    def reload_certificates(self, settings: Settings) -> None:
        """New connections use the re-read certificate; a client CA file can only add CAs."""
        context = self._config.ssl
        if context is None or settings.tls_cert is None or settings.tls_key is None:
            return
        context.load_cert_chain(settings.tls_cert, settings.tls_key)
        if settings.tls_client_ca is not None:
            context.load_verify_locations(settings.tls_client_ca)

    async def stop(self) -> None:
        """Listeners close, streams end with their runs; the `stopping` hooks end what would
        hold the server up (MCP sessions, whose event streams stay open while idle)."""
        self._server.should_exit = True
        limit = longest_shutdown(self._settings.shutdown_grace)
        await asyncio.gather(*(stopping(limit) for stopping in self._stopping))
        if self._task is not None:
            await asyncio.shield(self._task)
