"""Assembles the gRPC server (our services, health, reflection, auth) and shuts it down gently."""

from __future__ import annotations

import asyncio
import logging

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from outrider.server.core.agent import AgentRegistry
from outrider.server.core.log_redaction import SecretLogFilter
from outrider.server.core.runs import RunManager
from outrider.server.core.store import Store
from outrider.server.grpc_edge.auth import ApiKeyInterceptor
from outrider.server.grpc_edge.interaction_servicer import InteractionServicer
from outrider.server.grpc_edge.run_servicer import RunServicer
from outrider.server.settings import Settings
from outrider.v1 import (
    interaction_service_pb2,
    interaction_service_pb2_grpc,
    run_service_pb2,
    run_service_pb2_grpc,
)

log = logging.getLogger(__name__)

SERVICE_NAMES = (
    run_service_pb2.DESCRIPTOR.services_by_name["RunService"].full_name,
    interaction_service_pb2.DESCRIPTOR.services_by_name["InteractionService"].full_name,
)
# Keepalive that tolerates clients idling through a two-minute wait for a human.
_CHANNEL_OPTIONS = (
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
)


class OutriderServer:
    """The gRPC server with its run manager. `start()`, then `stop()` (idempotent)."""

    def __init__(self, settings: Settings, agents: AgentRegistry) -> None:
        self.settings = settings
        self.store = Store(settings.database_path)
        self.runs = RunManager(settings, self.store, agents)
        self._agents = agents
        self.health = health.aio.HealthServicer()
        interceptors = [ApiKeyInterceptor(settings.api_keys)] if settings.api_keys else []
        self._server = grpc.aio.server(interceptors=interceptors, options=_CHANNEL_OPTIONS)
        self._stopping: asyncio.Task[None] | None = None
        self._log_filter = SecretLogFilter(self.runs.redactors)
        self.port = 0

    async def start(self) -> int:
        self._log_filter.attach()
        recovered = self.runs.recover()
        if recovered:
            log.warning("closed %d runs left active by a previous process", recovered)
        run_service_pb2_grpc.add_RunServiceServicer_to_server(RunServicer(self.runs), self._server)
        interaction_service_pb2_grpc.add_InteractionServiceServicer_to_server(
            InteractionServicer(self.runs), self._server
        )
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self._server)
        reflection.enable_server_reflection(
            (*SERVICE_NAMES, health.SERVICE_NAME, reflection.SERVICE_NAME), self._server
        )
        address = f"{self.settings.host}:{self.settings.port}"
        self.port = self._server.add_insecure_port(address)
        await self._server.start()
        for name in ("", *SERVICE_NAMES):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        log.info("outrider listening on %s:%d", self.settings.host, self.port)
        return self.port

    async def stop(self) -> None:
        """NOT_SERVING, refuse new calls, let runs end (then cancel them), close. Idempotent."""
        if self._stopping is None:
            self._stopping = asyncio.create_task(self._stop())
        await asyncio.shield(self._stopping)

    async def _stop(self) -> None:
        grace = self.settings.shutdown_grace
        self.runs.stop_accepting()
        await self.health.enter_graceful_shutdown()
        await asyncio.sleep(0.1)  # let health watchers see NOT_SERVING before streams close
        refusing = asyncio.create_task(self._server.stop(grace + 10))
        await self.runs.shutdown(grace)
        for agent in {id(a): a for a in self._agents.values()}.values():
            await agent.aclose()
        await self._server.stop(1.0)
        await refusing
        self.store.close()
        log.info("outrider stopped")
        self._log_filter.detach()

    async def wait_for_termination(self) -> None:
        await self._server.wait_for_termination()
