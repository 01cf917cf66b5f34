"""The webhooks pages: the tenant's endpoints (state, URL, event types, failing since), and one
endpoint with its recent deliveries (state, attempts, response code, latency, error) and the
actions a person takes there: send a delivery again, enable or disable the endpoint. Every call
is one of the core's `WebhookEndpoints` (the webhooks.manage scope)."""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from outrider.server.console_edge.auth import CSRF_FIELD, ConsoleAuth, session_of
from outrider.server.console_edge.forms import read_form
from outrider.server.console_edge.templating import Pages, base_of
from outrider.server.core.errors import NotFound
from outrider.server.core.webhooks.endpoints import WebhookEndpoints
from outrider.server.core.webhooks.names import delivery_name, endpoint_name
from outrider.v1 import webhook_pb2 as wp

DELIVERIES_SHOWN = 50
_ID = re.compile(r"[0-9a-z]{8,64}")
_MESSAGE = re.compile(r"msg_[0-9a-zA-Z_]{8,80}")
STATES = {
    wp.WEBHOOK_DELIVERY_STATE_PENDING: ("pending", "waiting"),
    wp.WEBHOOK_DELIVERY_STATE_DELIVERED: ("delivered", "succeeded"),
    wp.WEBHOOK_DELIVERY_STATE_FAILED: ("failed", "failed"),
}


class WebhooksPage:
    def __init__(self, endpoints: WebhookEndpoints, pages: Pages, auth: ConsoleAuth) -> None:
        self._endpoints = endpoints
        self._pages = pages
        self._auth = auth

    async def index(self, request: Request) -> Response:
        session = session_of(request)
        found, _ = self._endpoints.list_endpoints(200, "", session.principal)
        return self._pages.page(request, "webhooks.html", endpoints=found, **self._context(request))

    async def endpoint(self, request: Request) -> Response:
        session = session_of(request)
        name = endpoint_name(_endpoint_id(request))
        endpoint = self._endpoints.get(name, session.principal)
        deliveries, _ = self._endpoints.deliveries(name, DELIVERIES_SHOWN, "", session.principal)
        return self._pages.page(
            request,
            "webhook.html",
            endpoint=endpoint,
            endpoint_id=name.removeprefix("webhookEndpoints/"),
            deliveries=[(d, *STATES.get(d.state, ("unknown", "waiting"))) for d in deliveries],
            sent=request.query_params.get("sent", ""),
            **self._context(request),
        )

    async def resend(self, request: Request) -> Response:
        endpoint_id, session = _endpoint_id(request), session_of(request)
        form = await read_form(request)
        self._auth.check_change(request, session, form.get(CSRF_FIELD))
        message_id = request.path_params["messageId"]
        if _MESSAGE.fullmatch(message_id) is None:
            raise NotFound("there is no such delivery")
        await self._endpoints.resend(delivery_name(endpoint_id, message_id), session.principal)
        return self._back(request, endpoint_id, f"sent={message_id}")

    async def switch(self, request: Request) -> Response:
        """Enables or disables the endpoint (the form says which)."""
        endpoint_id, session = _endpoint_id(request), session_of(request)
        form = await read_form(request)
        self._auth.check_change(request, session, form.get(CSRF_FIELD))
        endpoint = wp.WebhookEndpoint(
            name=endpoint_name(endpoint_id), enabled=form.get("enabled") == "true"
        )
        await self._endpoints.update(endpoint, ["enabled"], session.principal)
        return self._back(request, endpoint_id)

    def _context(self, request: Request) -> dict[str, object]:
        session = session_of(request)
        return {
            "session": session,
            "csrf": self._auth.signer.csrf_token(session),
            "auth_enabled": self._auth.keyring.enabled,
        }

    def _back(self, request: Request, endpoint_id: str, query: str = "") -> Response:
        target = f"{base_of(request)}/webhooks/{endpoint_id}{'?' + query if query else ''}"
        return RedirectResponse(target, 303)


def _endpoint_id(request: Request) -> str:
    value = request.path_params["endpointId"]
    if _ID.fullmatch(value) is None:
        raise NotFound("there is no such webhook endpoint")
    return str(value)
