"""The HTTP port's application: the REST edge's API and, beside it, the console (and any other
HTTP edge to come, each under its own path), composed here so that no edge imports another.

Every request is observed (span, metrics, access log) once, here, with the answer-link token
hidden. Each edge keeps its own middleware: the API's key check and browser guard never see the
console's paths, and the console's sessions and CSRF checks never see the API's.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from outrider.server.console_edge.app import build_console
from outrider.server.core.answer_links import CONSOLE_PATH, LINK_PATH
from outrider.server.core.runs import RunManager
from outrider.server.rest_edge.app import build_app as build_rest_app
from outrider.server.rest_edge.observe import ObservingMiddleware
from outrider.server.security.authn import Keyring
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
        middleware=[Middleware(ObservingMiddleware, hidden_prefixes=(LINK_PATH,))],
    )


async def _to_console_root(request: Request) -> Response:
    return RedirectResponse(f"{request.scope.get('root_path', '')}{CONSOLE_PATH}/", 307)
