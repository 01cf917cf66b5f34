"""The A2A edge's routes, mounted on the REST port by the composer (outrider.server.rest_port):
the agent card at /.well-known/agent-card.json (open, as discovery needs) and the JSON-RPC
endpoint at /a2a (the SDK's dispatcher, protocol 1.0 and 0.3, SSE for streams), behind our own
authentication."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from typing import Any

from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from a2a.utils.constants import VERSION_HEADER
from google.protobuf import json_format
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from outrider.server.a2a_edge.auth import CallContextBuilder, authenticated
from outrider.server.a2a_edge.card import RPC_PATH, agent_card
from outrider.server.a2a_edge.errors import masked
from outrider.server.a2a_edge.handler import OutriderRequestHandler
from outrider.server.a2a_edge.push import PushNotifications
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.core.storage.webhook_rows import A2A
from outrider.server.security.access import A2A_CARD_PATH
from outrider.server.security.authn import Keyring
from outrider.server.settings import Settings


@dataclass(frozen=True)
class A2ARoutes:
    routes: list[BaseRoute]
    paths: tuple[str, ...]  # what the edge answers itself (its own authentication)


# The SDK logs whole request and response bodies at DEBUG: an answer's form values would be
# written to the log, which no value typed into a form ever is (design §4), at any level.
CARD_MAX_AGE = 300  # seconds
_BODY_LOGGERS = ("a2a.server.routes", "a2a.compat.v0_3", "sse_starlette")


def build_a2a(
    runs: RunManager,
    settings: Settings,
    keyring: Keyring,
    sessions: SessionManager | None = None,
) -> A2ARoutes:
    for name in _BODY_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.INFO, logging.getLogger(name).level))
    runs.webhooks.render(A2A, PushNotifications(runs).render)  # push configs' deliveries
    dispatcher = JsonRpcDispatcher(
        OutriderRequestHandler(runs, sessions),
        context_builder=CallContextBuilder(settings.public_url),
        enable_v0_3_compat=True,
    )
    public = (settings.public_url or "").rstrip("/")

    async def card(request: Request) -> Response:
        base = public or str(request.base_url)
        shown = agent_card(settings, keyring, base)
        if _asks_for_1_0(request.headers.get(VERSION_HEADER, "")):
            body = json_format.MessageToDict(shown)
        else:  # clients that name no version may speak 0.3: the SDK adds the fields they read
            body = agent_card_to_dict(shown)
        return _cacheable(request, body)

    rpc = authenticated(masked(dispatcher.handle_requests), keyring)
    routes: list[BaseRoute] = [
        Route(A2A_CARD_PATH, card, methods=["GET"]),
        Route(RPC_PATH, rpc, methods=["POST"]),
        # Clients that join "/" to the card's URL (the TCK's httpx base URL) post here.
        Route(RPC_PATH + "/", rpc, methods=["POST"]),
    ]
    return A2ARoutes(routes, (A2A_CARD_PATH, RPC_PATH))


def _cacheable(request: Request, body: dict[str, Any]) -> Response:
    """The card with an ETag (a 304 when the client has it) and a short cache lifetime: it
    changes only with the server's configuration (keys, TLS, public URL)."""
    encoded = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    headers = {
        "ETag": f'W/"{hashlib.sha256(encoded).hexdigest()[:32]}"',
        "Cache-Control": f"public, max-age={CARD_MAX_AGE}",
        "Vary": VERSION_HEADER,
    }
    asked = request.headers.get("if-none-match", "")
    if headers["ETag"].removeprefix("W/") in {
        t.strip().removeprefix("W/") for t in asked.split(",")
    }:
        return Response(status_code=304, headers=headers)
    return JSONResponse(body, headers=headers)


def _asks_for_1_0(version: str) -> bool:
    try:
        numbers = tuple(int(n) for n in version.strip().split(".")[:2])
    except ValueError:
        return False
    return numbers >= (1, 0)
