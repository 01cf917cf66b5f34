"""The HTTP port's application: the REST edge's API and, beside it, the console (and any other
HTTP edge to come, each under its own path), composed here so that no edge imports another.

Every request is observed (span, metrics, access log) once, here, with the answer-link token
hidden, and, while authentication is off, refused unless its Host is one of this server's names
(security/hosts.py: DNS rebinding). Each edge keeps its own middleware: the API's key check and
browser guard never see the console's paths, and the console's sessions and CSRF checks never
see the API's.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from outrider.server.console_edge.app import build_console
from outrider.server.core.answer_links import CONSOLE_PATH, without_token
from outrider.server.core.runs import RunManager
from outrider.server.rest_edge.app import build_app as build_rest_app
from outrider.server.rest_edge.observe import ObservingMiddleware
from outrider.server.security.authn import Keyring
from outrider.server.security.hosts import HOST_NOT_ALLOWED, HostPolicy
from outrider.server.settings import Settings


def build_http_app(runs: RunManager, settings: Settings, keyring: Keyring) -> Starlette:
    routes: list[BaseRoute] = []
    if settings.console:
        routes += [
            Route(CONSOLE_PATH, _to_console_root, methods=["GET", "HEAD"]),
            Mount(CONSOLE_PATH, build_console(runs, settings, keyring)),
        ]
    routes.append(Mount("", build_rest_app(runs, settings, keyring)))  # everything else
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(ObservingMiddleware, shown_path=without_token),
            Middleware(HostGuardMiddleware, policy=HostPolicy(settings), keyring=keyring),
        ],
    )


class HostGuardMiddleware:
    """403 HOST_NOT_ALLOWED for a Host the policy does not know, while no key is configured."""

    def __init__(self, app: ASGIApp, policy: HostPolicy, keyring: Keyring) -> None:
        self._app = app
        self._policy = policy
        self._keyring = keyring

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._keyring.enabled:
            host = Headers(scope=scope).get("host")
            if not self._policy.allows(host):
                await _host_refused(host or "")(scope, receive, send)
                return
        await self._app(scope, receive, send)


def _host_refused(host: str) -> Response:
    message = (
        f"this server does not answer to the host name {host[:100]!r} while authentication is "
        "off (a guard against DNS rebinding): reach it as localhost or by IP address, or list "
        "the name in OUTRIDER_ALLOWED_HOSTS or OUTRIDER_PUBLIC_URL"
    )
    body = {"error": {"status": 403, "reason": HOST_NOT_ALLOWED, "message": message}}
    return JSONResponse(body, 403)


async def _to_console_root(request: Request) -> Response:
    return RedirectResponse(f"{request.scope.get('root_path', '')}{CONSOLE_PATH}/", 307)
