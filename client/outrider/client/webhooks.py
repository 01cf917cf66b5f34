"""The tenant's webhook endpoints and their deliveries (WebhookService), as
`AsyncClient.webhooks`:

async with AsyncClient("localhost:50051", api_key=key) as client:
    endpoint, secret = await client.webhooks.create("https://hooks.example.com/outrider")
    for delivery in await client.webhooks.deliveries(endpoint.name):
        print(delivery.event_type, delivery.state, delivery.response_code)
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import grpc
from google.protobuf import duration_pb2, field_mask_pb2

from outrider.client._grpc import seconds, translate
from outrider.v1 import webhook_pb2 as wp
from outrider.v1 import webhook_service_pb2 as ws
from outrider.v1 import webhook_service_pb2_grpc as wsg

ENDPOINTS = "webhookEndpoints/"


def endpoint_name(endpoint: str) -> str:
    """A name from an id or a name."""
    return endpoint if endpoint.startswith(ENDPOINTS) else ENDPOINTS + endpoint


class AsyncWebhooks:
    def __init__(
        self,
        channel: grpc.aio.Channel,
        metadata: Sequence[tuple[str, str]],
        deadline: timedelta | None,
    ) -> None:
        self._stub = wsg.WebhookServiceStub(channel)  # type: ignore[no-untyped-call]
        self._metadata = tuple(metadata)
        self._deadline = deadline

    async def create(
        self,
        url: str,
        event_types: Sequence[str] = (),
        *,
        description: str = "",
        carry_answer_links: bool = False,
    ) -> tuple[wp.WebhookEndpoint, str]:
        """The endpoint and its signing secret (shown this once)."""
        endpoint = wp.WebhookEndpoint(
            url=url,
            event_types=event_types,
            description=description,
            carry_answer_links=carry_answer_links,
        )
        request = ws.CreateWebhookEndpointRequest(endpoint=endpoint)
        created = await self._unary(self._stub.CreateWebhookEndpoint, request)
        return created.endpoint, created.secret

    async def get(self, endpoint: str) -> wp.WebhookEndpoint:
        request = ws.GetWebhookEndpointRequest(name=endpoint_name(endpoint))
        return (await self._unary(self._stub.GetWebhookEndpoint, request)).endpoint  # type: ignore[no-any-return]

    async def list_endpoints(
        self, page_size: int = 0, page_token: str = ""
    ) -> tuple[list[wp.WebhookEndpoint], str]:
        request = ws.ListWebhookEndpointsRequest(page_size=page_size, page_token=page_token)
        listed = await self._unary(self._stub.ListWebhookEndpoints, request)
        return list(listed.endpoints), listed.next_page_token

    async def update(self, endpoint: str, **fields: Any) -> wp.WebhookEndpoint:
        """Changes the fields given (url, event_types, description, carry_answer_links,
        enabled)."""
        changed = wp.WebhookEndpoint(name=endpoint_name(endpoint), **fields)
        mask = field_mask_pb2.FieldMask(paths=sorted(fields))
        request = ws.UpdateWebhookEndpointRequest(endpoint=changed, update_mask=mask)
        return (await self._unary(self._stub.UpdateWebhookEndpoint, request)).endpoint  # type: ignore[no-any-return]

    async def delete(self, endpoint: str) -> None:
        request = ws.DeleteWebhookEndpointRequest(name=endpoint_name(endpoint))
        await self._unary(self._stub.DeleteWebhookEndpoint, request)

    async def rotate(
        self, endpoint: str, overlap: timedelta | None = None
    ) -> tuple[wp.WebhookEndpoint, str]:
        """A new secret; the previous one signs beside it for `overlap` (default 24 h)."""
        request = ws.RotateWebhookSecretRequest(name=endpoint_name(endpoint))
        if overlap is not None:
            request.overlap.CopyFrom(duration_pb2.Duration(seconds=int(overlap.total_seconds())))
        rotated = await self._unary(self._stub.RotateWebhookSecret, request)
        return rotated.endpoint, rotated.secret

    async def deliveries(
        self, endpoint: str, page_size: int = 0, page_token: str = ""
    ) -> tuple[list[wp.WebhookDelivery], str]:
        request = ws.ListWebhookDeliveriesRequest(
            parent=endpoint_name(endpoint), page_size=page_size, page_token=page_token
        )
        listed = await self._unary(self._stub.ListWebhookDeliveries, request)
        return list(listed.deliveries), listed.next_page_token

    async def resend(self, endpoint: str, message_id: str) -> wp.WebhookDelivery:
        name = f"{endpoint_name(endpoint)}/deliveries/{message_id}"
        request = ws.ResendWebhookDeliveryRequest(name=name)
        return (await self._unary(self._stub.ResendWebhookDelivery, request)).delivery  # type: ignore[no-any-return]

    async def _unary(self, method: Any, request: Any) -> Any:
        try:
            return await method(request, metadata=self._metadata, timeout=seconds(self._deadline))
        except grpc.RpcError as error:
            raise translate(error) from None
