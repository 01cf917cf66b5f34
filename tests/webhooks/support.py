"""What the webhook tests share: a server configured to deliver to loopback receivers on a short
retry schedule, and the calls that make endpoints and runs."""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import struct_pb2

from outrider.server.settings.webhooks import WebhookSettings
from outrider.v1 import (
    params_pb2,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
    webhook_service_pb2_grpc,
)
from outrider.v1 import webhook_pb2 as wp
from outrider.v1 import webhook_service_pb2 as ws

LOOPBACK = ("127.0.0.0/8",)
# Waits before attempts 2, 3, ...: the spec's shape (growing), in tenths of seconds.
QUICK_RETRIES = (0.2, 0.5, 1.0, 2.0, 3.0)


def webhook_settings(**changes: Any) -> WebhookSettings:
    base: dict[str, Any] = {
        "allow": LOOPBACK,
        "retry_schedule": QUICK_RETRIES,
        "poll_interval": 0.2,
        "timeout": 5.0,
    }
    return WebhookSettings(**(base | changes))


def webhook_env(**changes: str) -> dict[str, str]:
    """The same, as a server process's environment."""
    base = {
        "OUTRIDER_WEBHOOKS_ALLOW": ",".join(LOOPBACK),
        "OUTRIDER_WEBHOOKS_RETRY_SCHEDULE": ",".join(str(s) for s in QUICK_RETRIES),
        "OUTRIDER_WEBHOOKS_POLL_INTERVAL": "0.2",
        "OUTRIDER_WEBHOOKS_TIMEOUT": "5",
    }
    return base | changes


class Calls:
    """The gRPC calls of a test, on one channel."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.webhooks = webhook_service_pb2_grpc.WebhookServiceStub(channel)
        self.runs = run_service_pb2_grpc.RunServiceStub(channel)

    async def endpoint(self, url: str, *types: str, links: bool = False) -> tuple[str, str]:
        """Creates an endpoint; returns its name and secret."""
        endpoint = wp.WebhookEndpoint(url=url, event_types=types, carry_answer_links=links)
        created = await self.webhooks.CreateWebhookEndpoint(
            ws.CreateWebhookEndpointRequest(endpoint=endpoint)
        )
        return created.endpoint.name, created.secret

    async def run(self, **plan: Any) -> str:
        """Starts a ScriptAgent browser run following `plan`; returns its id."""
        data = struct_pb2.Struct()
        data.update(plan)
        params = params_pb2.AutomateParams(task="webhook test", data=data)
        created = await self.runs.CreateRun(run_service_pb2.CreateRunRequest(automate=params))
        return str(created.run.name).removeprefix("runs/")

    async def state(self, run_id: str) -> int:
        got = await self.runs.GetRun(run_service_pb2.GetRunRequest(name=f"runs/{run_id}"))
        return int(got.run.state)

    async def deliveries(self, endpoint: str) -> list[wp.WebhookDelivery]:
        listed = await self.webhooks.ListWebhookDeliveries(
            ws.ListWebhookDeliveriesRequest(parent=endpoint)
        )
        return list(listed.deliveries)

    async def get(self, endpoint: str) -> wp.WebhookEndpoint:
        got = await self.webhooks.GetWebhookEndpoint(ws.GetWebhookEndpointRequest(name=endpoint))
        endpoint_now: wp.WebhookEndpoint = got.endpoint
        return endpoint_now


SUCCEEDED = run_pb2.RUN_STATE_SUCCEEDED
