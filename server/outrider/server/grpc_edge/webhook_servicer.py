"""WebhookService: the tenant's webhook endpoints and their deliveries, each RPC one call of the
core's `WebhookEndpoints`."""

from __future__ import annotations

from typing import Any

import grpc

from outrider.server.core.webhooks.endpoints import WebhookEndpoints
from outrider.server.grpc_edge.auth import caller
from outrider.server.grpc_edge.errors import unary
from outrider.v1 import webhook_service_pb2 as ws
from outrider.v1 import webhook_service_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]


class WebhookServicer(webhook_service_pb2_grpc.WebhookServiceServicer):
    def __init__(self, endpoints: WebhookEndpoints) -> None:
        self._endpoints = endpoints

    @unary
    async def CreateWebhookEndpoint(
        self, request: ws.CreateWebhookEndpointRequest, context: Context
    ) -> ws.CreateWebhookEndpointResponse:
        endpoint, secret = await self._endpoints.create(request.endpoint, caller())
        return ws.CreateWebhookEndpointResponse(endpoint=endpoint, secret=secret)

    @unary
    async def GetWebhookEndpoint(
        self, request: ws.GetWebhookEndpointRequest, context: Context
    ) -> ws.GetWebhookEndpointResponse:
        return ws.GetWebhookEndpointResponse(endpoint=self._endpoints.get(request.name, caller()))

    @unary
    async def ListWebhookEndpoints(
        self, request: ws.ListWebhookEndpointsRequest, context: Context
    ) -> ws.ListWebhookEndpointsResponse:
        found, token = self._endpoints.list_endpoints(
            request.page_size, request.page_token, caller()
        )
        return ws.ListWebhookEndpointsResponse(endpoints=found, next_page_token=token)

    @unary
    async def UpdateWebhookEndpoint(
        self, request: ws.UpdateWebhookEndpointRequest, context: Context
    ) -> ws.UpdateWebhookEndpointResponse:
        paths = list(request.update_mask.paths)
        endpoint = await self._endpoints.update(request.endpoint, paths, caller())
        return ws.UpdateWebhookEndpointResponse(endpoint=endpoint)

    @unary
    async def DeleteWebhookEndpoint(
        self, request: ws.DeleteWebhookEndpointRequest, context: Context
    ) -> ws.DeleteWebhookEndpointResponse:
        await self._endpoints.delete(request.name, caller())
        return ws.DeleteWebhookEndpointResponse(name=request.name)

    @unary
    async def RotateWebhookSecret(
        self, request: ws.RotateWebhookSecretRequest, context: Context
    ) -> ws.RotateWebhookSecretResponse:
        overlap = request.overlap.ToTimedelta().total_seconds()
        endpoint, secret = await self._endpoints.rotate(request.name, overlap, caller())
        return ws.RotateWebhookSecretResponse(endpoint=endpoint, secret=secret)

    @unary
    async def ListWebhookDeliveries(
        self, request: ws.ListWebhookDeliveriesRequest, context: Context
    ) -> ws.ListWebhookDeliveriesResponse:
        found, token = self._endpoints.deliveries(
            request.parent, request.page_size, request.page_token, caller()
        )
        return ws.ListWebhookDeliveriesResponse(deliveries=found, next_page_token=token)

    @unary
    async def ResendWebhookDelivery(
        self, request: ws.ResendWebhookDeliveryRequest, context: Context
    ) -> ws.ResendWebhookDeliveryResponse:
        delivery = await self._endpoints.resend(request.name, caller())
        return ws.ResendWebhookDeliveryResponse(delivery=delivery)
