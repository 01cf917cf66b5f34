"""What the REST port serves: the REST/SSE API and, beside it, the console (/console), the A2A
agent (/.well-known/agent-card.json, /a2a) and the MCP server (/mcp), composed here so that no
edge imports another (design §11).

Each edge is its own application with its own middleware, and never sees another's:
- the API: the browser guard (CORS, JSON bodies) and the key check (rest_edge/app.py);
- the console: sessions, CSRF checks and its security headers (console_edge/app.py);
- the A2A agent: it authenticates its callers and checks its bodies itself (its refusals are
  JSON-RPC errors; its card is public); CORS is the API's policy, applied here to its paths;
- the MCP server: it authenticates its callers and checks Host and Origin itself (the MCP
  transport's rules against DNS rebinding, with keys too), in JSON-RPC's error shape.
Around them all, once: observation (a span, metrics and an access-log line per request, an
answer link's token left out) and, while authentication is off, the DNS-rebinding guard
(security/hosts.py: 403 HOST_NOT_ALLOWED for a Host that is not one of this server's names).
In front of each, its body guard (rest_edge/body_limits.py): the edge's size limit and error
shape, the port's read timeout, and bodies cut with 503 as the server stops.

Adding an edge: give `edges_beside_the_api` a `MountedEdge` whose routes (a Mount of the edge's
own app under its prefix, or Routes to it for exact paths) are tried before the API, which
answers every other path. An edge with something to run while the server runs (a session
manager, a background task) passes `lifespan`: a function returning an async context manager,
entered before the port accepts its first request and exited after the last one ended, when the
server stops; an error while entering stops the start (RestServer.start raises). An edge whose
requests stay open while idle (MCP sessions' event streams) passes `stopping` too: called when
the server begins to stop, before it waits for its open requests, it ends them (uvicorn exits
lifespans only once the last request ended, or at its graceful-stop limit).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from outrider.server.a2a_edge.app import build_a2a
from outrider.server.a2a_edge.auth import MAX_BODY_BYTES as MAX_A2A_BODY
from outrider.server.a2a_edge.auth import body_refusal as a2a_body_refusal
from outrider.server.console_edge.app import build_console
from outrider.server.console_edge.live_view import MAX_INPUT_BYTES
from outrider.server.core.interactions.answer_links import CONSOLE_PATH, without_token
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.front_door import front_door_routes
from outrider.server.mcp_edge.app import MAX_BODY_BYTES as MAX_MCP_BODY
from outrider.server.mcp_edge.app import MOUNT_PATH as MCP_PATH
from outrider.server.mcp_edge.app import McpEdge
from outrider.server.mcp_edge.guard import body_refusal as mcp_body_refusal
from outrider.server.rest_edge.app import build_app as build_api
from outrider.server.rest_edge.app import http_error
from outrider.server.rest_edge.bodies import MAX_BODY_BYTES as MAX_API_BODY
from outrider.server.rest_edge.body_limits import BodyLimits
from outrider.server.rest_edge.browsers import BrowserGuardMiddleware
from outrider.server.rest_edge.errors import body_refusal
from outrider.server.rest_edge.observe import ObservingMiddleware
from outrider.server.rest_edge.server import RestServer
from outrider.server.security.authn import Keyring
from outrider.server.security.hosts import HOST_NOT_ALLOWED, HostPolicy
from outrider.server.settings import Settings

Lifespan = Callable[[], AbstractAsyncContextManager[None]]
Stopping = Callable[[float], Awaitable[None]]  # given the longest a stop waits for requests


@dataclass(frozen=True)
class MountedEdge:
    """An edge on the REST port beside the API: `routes` lead to its own application;
    `lifespan` (optional) runs while the server runs, `stopping` (optional) is called as it
    begins to stop (see the module docstring)."""

    routes: Sequence[BaseRoute]
    lifespan: Lifespan | None = None
    stopping: Stopping | None = None


def rest_server(
    settings: Settings,
    runs: RunManager,
    keyring: Keyring,
    sessions: SessionManager | None = None,
) -> RestServer:
    """The REST port's server with every edge the settings ask for (`sessions`: the session
    routes and tools too); request bodies stop arriving first when it stops."""
    bodies = BodyLimits(settings.body_read_timeout)
    edges = edges_beside_the_api(runs, settings, keyring, bodies, sessions)
    api = bodies.guard(build_api(runs, settings, keyring, sessions), MAX_API_BODY, body_refusal)
    app = composed(api, edges, settings, keyring)
    stopping = [bodies.stop, *(edge.stopping for edge in edges if edge.stopping)]
    return RestServer(settings, app, stopping)


def composed(
    api: ASGIApp, edges: Sequence[MountedEdge], settings: Settings, keyring: Keyring
) -> Starlette:
    """`edges` tried in order, then `api` for every other path; observed and host-guarded."""
    routes = [route for edge in edges for route in edge.routes]
    routes.append(Mount("", api))
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(ObservingMiddleware, shown_path=without_token),
            Middleware(HostGuardMiddleware, policy=HostPolicy(settings), keyring=keyring),
        ],
        lifespan=_all_of([edge.lifespan for edge in edges if edge.lifespan is not None]),
        # a path no mount matches (one with a newline: no route pattern spans it) is the API's
        # JSON 404, not Starlette's plain text
        exception_handlers={HTTPException: http_error},  # type: ignore[dict-item]
    )


def edges_beside_the_api(
    runs: RunManager,
    settings: Settings,
    keyring: Keyring,
    bodies: BodyLimits,
    sessions: SessionManager | None = None,
) -> list[MountedEdge]:
    """Each edge behind its body guard: its limit, its error shape; the front door first."""
    edges = [MountedEdge(front_door_routes(settings))]
    if settings.console:
        pages = build_console(runs, settings, keyring, sessions)
        console = bodies.guard(pages, MAX_INPUT_BYTES, body_refusal)
        to_root = Route(CONSOLE_PATH, _to_console_root, methods=["GET", "HEAD"])
        edges.append(MountedEdge([to_root, Mount(CONSOLE_PATH, console)]))
    if settings.a2a:
        edges.append(MountedEdge(_a2a_routes(runs, settings, keyring, bodies, sessions)))
    if settings.mcp:
        mcp = McpEdge(runs, settings, keyring, sessions)
        guarded = bodies.guard(mcp.app, MAX_MCP_BODY, mcp_body_refusal)
        routes = [Route(MCP_PATH, guarded), *mcp.metadata_routes]
        edges.append(MountedEdge(routes, mcp.lifespan, mcp.stop))
    return edges


def _a2a_routes(
    runs: RunManager,
    settings: Settings,
    keyring: Keyring,
    bodies: BodyLimits,
    sessions: SessionManager | None,
) -> list[BaseRoute]:
    """Routes of any method to the A2A agent's app (its own router answers 405), so that its
    CORS preflights reach the browser guard in front of it."""
    a2a = build_a2a(runs, settings, keyring, sessions)
    guarded = Starlette(
        routes=a2a.routes,
        middleware=[
            Middleware(
                BrowserGuardMiddleware, allowed_origins=settings.cors_origins, check_media=False
            )
        ],
    )
    app = bodies.guard(guarded, MAX_A2A_BODY, a2a_body_refusal)
    return [Route(route.path, app) for route in a2a.routes if isinstance(route, Route)]


def _all_of(
    lifespans: Sequence[Lifespan],
) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for each in lifespans:
                await stack.enter_async_context(each())
            yield

    return lifespan


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
