"""REST routes of the tenant's webhook endpoints (`/v1/webhooks/endpoints...`), beside the
Tabstack ones: the same calls as the gRPC WebhookService, JSON in the contract's field names."""

from __future__ import annotations

import re

from google.protobuf import json_format
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from outrider.server.core.errors import InvalidArgument
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.webhooks.endpoints import WebhookEndpoints
from outrider.server.core.webhooks.names import delivery_name, endpoint_name
from outrider.server.rest_edge import queries
from outrider.server.rest_edge.auth import principal_of
from outrider.server.rest_edge.bodies import read_object
from outrider.server.rest_edge.wire import to_json
from outrider.v1 import webhook_pb2 as wp

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


class WebhookRoutes:
    def __init__(self, runs: RunManager) -> None:
        self._runs = runs

    @property
    def _endpoints(self) -> WebhookEndpoints:
        return self._runs.webhooks.endpoints

    async def create(self, request: Request) -> Response:
        endpoint = _endpoint(await read_object(request))
        created, secret = await self._endpoints.create(endpoint, principal_of(request))
        return JSONResponse({"endpoint": to_json(created), "secret": secret}, 201)

    async def list_endpoints(self, request: Request) -> Response:
        page = queries.page(request)
        found, token = self._endpoints.list_endpoints(page.size, page.token, principal_of(request))
        return JSONResponse({"endpoints": [to_json(e) for e in found], "nextPageToken": token})

    async def get(self, request: Request) -> Response:
        return JSONResponse(to_json(self._endpoints.get(_name(request), principal_of(request))))

    async def update(self, request: Request) -> Response:
        body = await read_object(request)
        endpoint = _endpoint(body)
        endpoint.name = _name(request)
        paths = [_CAMEL.sub("_", key).lower() for key in body]
        updated = await self._endpoints.update(endpoint, paths, principal_of(request))
        return JSONResponse(to_json(updated))

    async def delete(self, request: Request) -> Response:
        await self._endpoints.delete(_name(request), principal_of(request))
        return JSONResponse({"name": _name(request)})

    async def rotate(self, request: Request) -> Response:
        body = await read_object(request, required=False)
        overlap = body.get("overlapSeconds", 0)
        if not isinstance(overlap, int | float) or isinstance(overlap, bool):
            raise InvalidArgument.single("overlapSeconds", "must be a number of seconds")
        rotated, secret = await self._endpoints.rotate(
            _name(request), float(overlap), principal_of(request)
        )
        return JSONResponse({"endpoint": to_json(rotated), "secret": secret})

    async def deliveries(self, request: Request) -> Response:
        page = queries.page(request)
        found, token = self._endpoints.deliveries(
            _name(request), page.size, page.token, principal_of(request)
        )
        return JSONResponse({"deliveries": [to_json(d) for d in found], "nextPageToken": token})

    async def resend(self, request: Request) -> Response:
        name = delivery_name(request.path_params["endpointId"], request.path_params["messageId"])
        delivery = await self._endpoints.resend(name, principal_of(request))
        return JSONResponse(to_json(delivery))


def _name(request: Request) -> str:
    return endpoint_name(request.path_params["endpointId"])


def _endpoint(body: dict[str, object]) -> wp.WebhookEndpoint:
    endpoint = wp.WebhookEndpoint()
    try:
        json_format.ParseDict(body, endpoint)
    except json_format.ParseError as error:
        raise InvalidArgument.single("body", str(error)) from None
    return endpoint
