"""grpc.health.v1.Health with List: grpcio's asyncio servicer answers Check and Watch only, and
probes that discover services (grpc-health-probe's list, some meshes) ask List."""

from __future__ import annotations

from typing import Any

from grpc_health.v1 import health, health_pb2


class HealthServicer(health.aio.HealthServicer):  # type: ignore[misc]  # untyped library
    """The library's servicer, keeping its own record of every status set, for List."""

    def __init__(self) -> None:
        super().__init__()
        self._statuses: dict[str, int] = {"": health_pb2.HealthCheckResponse.SERVING}
        self._closing = False

    async def set(self, service: str, status: int) -> None:
        if not self._closing:
            self._statuses[service] = status
        await super().set(service, status)

    async def enter_graceful_shutdown(self) -> None:
        self._closing = True
        self._statuses = dict.fromkeys(self._statuses, health_pb2.HealthCheckResponse.NOT_SERVING)
        await super().enter_graceful_shutdown()

    async def List(
        self, request: health_pb2.HealthListRequest, context: Any
    ) -> health_pb2.HealthListResponse:
        return health_pb2.HealthListResponse(
            statuses={
                name: health_pb2.HealthCheckResponse(status=status)
                for name, status in self._statuses.items()
            }
        )
