"""The Starlette application: routes, the error table applied to every route, and auth; the edges
served beside the API on this port (console, A2A) are handed in by the composer
(`outrider.server.rest_port`), so this edge imports no other."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from outrider.server.core.errors import OutriderError, PermissionDenied
from outrider.server.core.principals import Scope
from outrider.server.core.runs import RunManager
from outrider.server.rest_edge.auth import AuthMiddleware, principal_of
from outrider.server.rest_edge.browsers import BrowserGuardMiddleware
from outrider.server.rest_edge.errors import error_response, internal_response
from outrider.server.rest_edge.observe import ObservingMiddleware, metrics_endpoint
from outrider.server.rest_edge.openapi import openapi_document
from outrider.server.rest_edge.routes import Routes
from outrider.server.security.access import OPEN, Requirement, rest_requirement
from outrider.server.security.authn import Keyring
from outrider.server.settings import Settings

log = logging.getLogger(__name__)

Endpoint = Callable[[Request], Awaitable[Response]]


class EdgeLifecycle(Protocol):
    """What an edge that runs something of its own while the port serves brings with it."""

    async def start(self) -> None:
        """Called before the port accepts connections."""

    async def stop(self, limit: float) -> None:
        """Called once the port stops accepting connections, before the server waits for its
        open requests (at most `limit` seconds): it ends what would otherwise hold them open."""


@dataclass(frozen=True)
class MountedEdge:
    """An edge served on this port beside the API. `own_auth`: path prefixes whose callers it
    authenticates itself (the API's key check leaves them alone); `own_guard`: prefixes where
    it guards against other sites' pages itself (the API's browser guard leaves them alone);
    `own_media_check`: prefixes where it refuses bodies that are not JSON itself, in its own
    error shape (CORS is still the browser guard's); `hidden_prefixes`: paths whose rest is a
    secret, shown as the prefix and "…" in logs and spans; `lifecycle`: started and stopped
    with the server."""

    routes: Sequence[BaseRoute]
    own_auth: tuple[str, ...] = ()
    own_guard: tuple[str, ...] = ()
    own_media_check: tuple[str, ...] = ()
    hidden_prefixes: tuple[str, ...] = ()
    lifecycle: EdgeLifecycle | None = None


def mapped(endpoint: Endpoint) -> Endpoint:
    """Core errors become their HTTP status; anything else a generic 500 and a log line."""

    @functools.wraps(endpoint)
    async def wrapper(request: Request) -> Response:
        try:
            return await endpoint(request)
        except OutriderError as error:
            return error_response(error)
        except Exception:
            log.exception("unexpected error in %s %s", request.method, request.url.path)
            return internal_response()

    return wrapper


def requiring(need: Requirement | None, endpoint: Endpoint) -> Endpoint:
    """Checks the route's entry of the access table before the route runs."""
    if need == OPEN:
        return endpoint

    @functools.wraps(endpoint)
    async def wrapper(request: Request) -> Response:
        if need is None:
            raise PermissionDenied(f"{request.url.path} has no access rule", "NO_ACCESS_RULE")
        if isinstance(need, Scope):
            principal_of(request).require(need)
        return await endpoint(request)

    return wrapper


def build_app(
    runs: RunManager, settings: Settings, keyring: Keyring, edges: Sequence[MountedEdge] = ()
) -> Starlette:
    r = Routes(runs, settings)
    document = openapi_document()

    async def openapi(request: Request) -> Response:
        return JSONResponse(document)

    table: list[tuple[str, Endpoint, str]] = [
        ("/v1/automate", r.automate, "POST"),
        ("/v1/automate/{requestId}/input", r.automate_input, "POST"),
        ("/v1/automate/{approvalId}/approval", r.automate_approval, "POST"),
        ("/v1/research", r.research, "POST"),
        ("/v1/runs", r.list_runs, "GET"),
        ("/v1/runs/{runId}", r.get_run, "GET"),
        ("/v1/runs/{runId}", r.delete_run, "DELETE"),
        ("/v1/runs/{runId}/cancel", r.cancel_run, "POST"),
        ("/v1/runs/{runId}/events", r.events, "GET"),
        ("/v1/runs/{runId}/artifacts/{artifactId}", r.read_artifact, "GET"),
        ("/v1/interactions", r.list_interactions, "GET"),
        ("/v1/interactions/{interactionId}", r.get_interaction, "GET"),
        ("/healthz", r.health, "GET"),
        ("/openapi.json", openapi, "GET"),
        ("/metrics", metrics_endpoint, "GET"),
    ]
    routes: list[BaseRoute] = [
        Route(
            path, mapped(requiring(rest_requirement(method, path, settings), fn)), methods=[method]
        )
        for path, fn, method in table
    ]
    open_paths = frozenset(
        path for path, _, method in table if rest_requirement(method, path, settings) == OPEN
    )
    for edge in edges:
        routes.extend(edge.routes)
    own_auth = tuple(prefix for edge in edges for prefix in edge.own_auth)
    own_guard = tuple(prefix for edge in edges for prefix in edge.own_guard)
    own_media = tuple(prefix for edge in edges for prefix in edge.own_media_check)
    hidden = tuple(prefix for edge in edges for prefix in edge.hidden_prefixes)
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(ObservingMiddleware, hidden_prefixes=hidden),
            Middleware(
                BrowserGuardMiddleware,
                allowed_origins=settings.cors_origins,
                own_paths=own_guard,
                own_media_check=own_media,
            ),
            Middleware(AuthMiddleware, keyring=keyring, open_paths=open_paths, own_paths=own_auth),
        ],
        exception_handlers={HTTPException: _http_error},  # type: ignore[dict-item]
    )


async def _http_error(request: Request, error: HTTPException) -> Response:
    """Unknown paths and methods, in the same JSON shape as every other error."""
    reason = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(error.status_code, "HTTP_ERROR")
    body = {"error": {"status": error.status_code, "reason": reason, "message": error.detail}}
    return JSONResponse(body, error.status_code, headers=error.headers)
