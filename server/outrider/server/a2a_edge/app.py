"""The A2A edge's routes, mounted on the REST port by the composer (outrider.server.rest_port):
the agent card at /.well-known/agent-card.json (open, as discovery needs) and the JSON-RPC
endpoint at /a2a (the SDK's dispatcher, protocol 1.0 and 0.3, SSE for streams), behind our own
authentication."""

from __future__ import annotations

from dataclasses import dataclass

from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from outrider.server.a2a_edge.auth import CallContextBuilder, authenticated
from outrider.server.a2a_edge.card import RPC_PATH, agent_card
from outrider.server.a2a_edge.handler import OutriderRequestHandler
from outrider.server.core.runs import RunManager
from outrider.server.security.access import A2A_CARD_PATH
from outrider.server.security.authn import Keyring
from outrider.server.settings import Settings


@dataclass(frozen=True)
class A2ARoutes:
    routes: list[BaseRoute]
    paths: tuple[str, ...]  # what the edge answers itself (its own authentication)


def build_a2a(runs: RunManager, settings: Settings, keyring: Keyring) -> A2ARoutes:
    dispatcher = JsonRpcDispatcher(
        OutriderRequestHandler(runs),
        context_builder=CallContextBuilder(settings.public_url),
        enable_v0_3_compat=True,
    )
    public = (settings.public_url or "").rstrip("/")

    async def card(request: Request) -> Response:
        base = public or str(request.base_url)
        return JSONResponse(agent_card_to_dict(agent_card(settings, keyring, base)))

    routes: list[BaseRoute] = [
        Route(A2A_CARD_PATH, card, methods=["GET"]),
        Route(RPC_PATH, authenticated(dispatcher.handle_requests, keyring), methods=["POST"]),
    ]
    return A2ARoutes(routes, (A2A_CARD_PATH, RPC_PATH))
