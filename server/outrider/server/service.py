"""The whole service: the gRPC edge and (unless disabled) the REST/SSE edge over one RunManager,
in one process and one event loop."""

from __future__ import annotations

import asyncio
import logging

from outrider.server.core.runs.agent import AgentRegistry
from outrider.server.grpc_edge.server import OutriderServer
from outrider.server.ports import check_free
from outrider.server.rest_port import rest_server
from outrider.server.settings import Settings
from outrider.server.telemetry.metrics_server import MetricsServer

log = logging.getLogger(__name__)


class Outrider:
    """`start()`, then `stop()` (idempotent). Both edges share `grpc.runs`."""

    def __init__(self, settings: Settings, agents: AgentRegistry) -> None:
        self.settings = settings
        self.grpc = OutriderServer(settings, agents)
        self.rest = (
            rest_server(settings, self.grpc.runs, self.grpc.keyring, self.grpc.sessions)
            if settings.rest_enabled
            else None
        )
        self.metrics = (
            MetricsServer(settings.metrics_host, settings.metrics_port)
            if settings.metrics_port is not None
            else None
        )

    async def start(self) -> None:
        """Raises PortInUse, with nothing started and no run touched, when a port is taken."""
        try:
            self._take_ports()
        except BaseException:
            self._release_ports()
            self.grpc.close_unstarted()
            raise
        try:
            await self.grpc.start()  # binds its own ports first
        except BaseException:
            self._release_ports()
            raise
        if self.rest is not None:
            await self.rest.start()
        if self.metrics is not None:
            self.metrics.start()

    def _take_ports(self) -> None:
        if self.rest is not None:
            self.rest.bind()
        if self.settings.metrics_port is not None:
            host = self.settings.metrics_host
            check_free("metrics", host, self.settings.metrics_port, "OUTRIDER_METRICS_PORT")

    def _release_ports(self) -> None:
        if self.rest is not None:
            self.rest.release()

    def reload(self) -> bool:
        """SIGHUP: re-reads the key file (both edges share the keyring) and the TLS files. Calls
        already admitted finish; streams end at their next batch or heartbeat once their key is
        gone (core/runs/stream_checks.py); new connections get the new certificate."""
        try:
            if self.grpc.certificates is not None:
                self.grpc.certificates.reload()
            if self.rest is not None:
                self.rest.reload_certificates(self.settings)
        except (OSError, ValueError) as error:  # ssl.SSLError is an OSError
            log.error("TLS files not reloaded, the previous certificate stays in use: %s", error)
        return self.grpc.keyring.reload()

    async def stop(self) -> None:
        """Both edges stop together: listeners close, runs get the grace period, streams end."""
        stopping = [self.grpc.stop()]
        if self.rest is not None:
            stopping.append(self.rest.stop())
        await asyncio.gather(*stopping)
        if self.metrics is not None:
            await asyncio.to_thread(self.metrics.stop)
