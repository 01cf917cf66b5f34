"""The REST edge's Starlette application: routes, the error table applied to every route, the
browser guard and auth. The composer (outrider.server.rest_port) puts it on the REST port beside
the other HTTP edges."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from outrider.server.core.errors import OutriderError, PermissionDenied
from outrider.server.core.principals import Scope
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.rest_edge.auth import AuthMiddleware, principal_of
from outrider.server.rest_edge.browsers import BrowserGuardMiddleware
from outrider.server.rest_edge.errors import error_response, internal_response
from outrider.server.rest_edge.observe import metrics_endpoint
from outrider.server.rest_edge.openapi import openapi_document
from outrider.server.rest_edge.routes import Routes
from outrider.server.rest_edge.session_routes import SessionRoutes
from outrider.server.rest_edge.vault_routes import VaultRoutes
from outrider.server.rest_edge.webhooks import WebhookRoutes
from outrider.server.security.access import OPEN, Requirement, rest_requirement
from outrider.server.security.authn import Keyring
from outrider.server.settings import Settings
from outrider.server.telemetry.incidents import incident

log = logging.getLogger(__name__)

Endpoint = Callable[[Request], Awaitable[Response]]


def mapped(endpoint: Endpoint) -> Endpoint:
    """Core errors become their HTTP status; anything else a generic 500 and a log line."""

    @functools.wraps(endpoint)
    async def wrapper(request: Request) -> Response:
        try:
            return await endpoint(request)
        except OutriderError as error:
            return error_response(error)
        except Exception:
            where = (request.method, request.url.path)
            return internal_response(incident(log, "unexpected error in %s %s", *where))

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
    runs: RunManager,
    settings: Settings,
    keyring: Keyring,
    sessions: SessionManager | None = None,
) -> Starlette:
    r = Routes(runs, settings)
    v = VaultRoutes(runs)
    w = WebhookRoutes(runs)
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
        ("/v1/profiles", v.list_profiles, "GET"),
        ("/v1/profiles", v.create_profile, "POST"),
        ("/v1/profiles/{profileId}", v.get_profile, "GET"),
        ("/v1/profiles/{profileId}", v.delete_profile, "DELETE"),
        ("/v1/profiles/{profileId}/login", v.login, "POST"),
        ("/v1/credentials", v.list_credentials, "GET"),
        ("/v1/credentials/{credentialId}", v.get_credential, "GET"),
        ("/v1/credentials/{credentialId}", v.set_credential, "PUT"),
        ("/v1/credentials/{credentialId}", v.delete_credential, "DELETE"),
        ("/v1/credential-uses", v.credential_uses, "GET"),
        ("/v1/webhooks/endpoints", w.create, "POST"),
        ("/v1/webhooks/endpoints", w.list_endpoints, "GET"),
        ("/v1/webhooks/endpoints/{endpointId}", w.get, "GET"),
        ("/v1/webhooks/endpoints/{endpointId}", w.update, "PATCH"),
        ("/v1/webhooks/endpoints/{endpointId}", w.delete, "DELETE"),
        ("/v1/webhooks/endpoints/{endpointId}/rotate", w.rotate, "POST"),
        ("/v1/webhooks/endpoints/{endpointId}/deliveries", w.deliveries, "GET"),
        ("/v1/webhooks/endpoints/{endpointId}/deliveries/{messageId}/resend", w.resend, "POST"),
        ("/healthz", r.health, "GET"),
        ("/openapi.json", openapi, "GET"),
        ("/metrics", metrics_endpoint, "GET"),
    ]
    if sessions is not None:
        s = SessionRoutes(sessions, settings.rest_retry_ms)
        table += [
            ("/v1/sessions", s.create, "POST"),
            ("/v1/sessions", s.list, "GET"),
            ("/v1/sessions/{sessionId}", s.get, "GET"),
            ("/v1/sessions/{sessionId}/end", s.end, "POST"),
            ("/v1/sessions/{sessionId}/events", s.events, "GET"),
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
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(BrowserGuardMiddleware, allowed_origins=settings.cors_origins),
            Middleware(AuthMiddleware, keyring=keyring, open_paths=open_paths),
        ],
        exception_handlers={HTTPException: http_error},  # type: ignore[dict-item]
    )


async def http_error(request: Request, error: HTTPException) -> Response:
    """Unknown paths and methods, in the same JSON shape as every other error."""
    reason = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(error.status_code, "HTTP_ERROR")
    body = {"error": {"status": error.status_code, "reason": reason, "message": error.detail}}
    return JSONResponse(body, error.status_code, headers=error.headers)
