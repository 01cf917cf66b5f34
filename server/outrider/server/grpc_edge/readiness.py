"""grpc.health as probes read it, kept up to date: the process ("") serves until shutdown
(liveness: a replica waiting out a database outage is alive, and restarting it would not bring
the database back); `outrider.v1.RunService` serves while runs can start here (readiness:
not while no agent can run, nor while the store has been unreachable longer than
OUTRIDER_STORE_UNREADY_AFTER); `outrider.v1.InteractionService` serves unless the store is
unreachable that long (answers need it). Shutdown sets every status NOT_SERVING itself."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from grpc_health.v1 import health_pb2

from outrider.server.core.background import BackgroundTask
from outrider.server.grpc_edge.health import HealthServicer

log = logging.getLogger(__name__)

_SERVING = health_pb2.HealthCheckResponse.SERVING
_NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
_PERIOD = 0.5  # seconds between two looks at readiness
STORE_UNREACHABLE = "STORE_UNREACHABLE"


class HealthStatuses(BackgroundTask):
    """`show()` sets the statuses for `not_serving()` (a reason, or "" when runs can start);
    `start()` follows it every half second and logs each change."""

    def __init__(
        self,
        servicer: HealthServicer,
        run_service: str,
        interaction_service: str,
        not_serving: Callable[[], str],
    ) -> None:
        super().__init__("outrider-health", self._follow)
        self._servicer = servicer
        self._services = (run_service, interaction_service)
        self._not_serving = not_serving
        self._shown: str | None = None

    async def show(self) -> None:
        reason = self._not_serving()
        if reason == self._shown:
            return
        if self._shown is not None:  # a change after start (the start logs its own state)
            if reason:
                log.warning("not ready: %s", reason)
            else:
                log.warning("ready again")
        self._shown = reason
        run_service, interaction_service = self._services
        await self._servicer.set("", _SERVING)
        await self._servicer.set(run_service, _NOT_SERVING if reason else _SERVING)
        answers = _NOT_SERVING if reason == STORE_UNREACHABLE else _SERVING
        await self._servicer.set(interaction_service, answers)

    async def _follow(self) -> None:
        while True:
            await asyncio.sleep(_PERIOD)
            await self.show()
