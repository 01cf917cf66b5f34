"""grpc.health as probes read it: the overall service ("") and each of our services report
readiness (NOT_SERVING while the store has been unreachable too long, or during shutdown), the
`liveness` service reports that the process serves at all (SERVING until shutdown: a replica
waiting out a database outage is alive, and restarting it would not help)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from grpc_health.v1 import health, health_pb2

from outrider.server.core.background import BackgroundTask

log = logging.getLogger(__name__)

LIVENESS = "liveness"
_SERVING = health_pb2.HealthCheckResponse.SERVING
_NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
_PERIOD = 0.5  # seconds between two looks at readiness


class Readiness(BackgroundTask):
    """`start()` sets every status and follows `not_ready()` (a reason, or None when ready)."""

    def __init__(
        self,
        servicer: health.aio.HealthServicer,
        services: Sequence[str],
        not_ready: Callable[[], str | None],
    ) -> None:
        super().__init__("outrider-readiness", self._follow)
        self._servicer = servicer
        self._services = ("", *services)
        self._not_ready = not_ready
        self._reason: str | None = "starting"

    async def serve(self) -> None:
        """The statuses at start: alive, and ready unless something says otherwise."""
        await self._servicer.set(LIVENESS, _SERVING)
        await self._update()

    async def _follow(self) -> None:
        while True:
            await asyncio.sleep(_PERIOD)
            await self._update()

    async def _update(self) -> None:
        reason = self._not_ready()
        if reason == self._reason:
            return
        if reason is not None:
            log.warning("not ready: %s", reason)
        elif self._reason != "starting":
            log.warning("ready again")
        self._reason = reason
        status = _SERVING if reason is None else _NOT_SERVING
        for name in self._services:
            await self._servicer.set(name, status)
