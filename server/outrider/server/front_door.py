"""The REST port's root ("/"): a browser that opens it lands on the console when the console is
served, else on a short page naming the port's doors (the API, MCP, A2A); a client that does not
ask for HTML gets the same list as JSON. The server's start-up lines print the same list
(`doors`), so does `outrider demo --serve`. Composed beside the edges by rest_port.py."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Protocol

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from outrider.server.core.interactions.answer_links import CONSOLE_PATH
from outrider.server.security.access import A2A_CARD_PATH, A2A_RPC_PATH, MCP_PATH
from outrider.server.settings import Settings


class Served(Protocol):
    """Which doors the port serves besides the API (Settings has these)."""

    @property
    def console(self) -> bool: ...
    @property
    def mcp(self) -> bool: ...
    @property
    def a2a(self) -> bool: ...


@dataclass(frozen=True)
class Door:
    name: str
    url: str
    what: str


def doors(settings: Served, base: str) -> list[Door]:
    """The doors of the REST port at `base` (its origin, with any path prefix), API first."""
    api = f"the Tabstack-compatible API (OpenAPI at {base}/openapi.json)"
    found = [Door("REST/SSE API", f"{base}/v1", api)]
    if settings.console:
        what = "web pages for people: start, watch and answer runs"
        found.append(Door("Console", f"{base}{CONSOLE_PATH}/", what))
    if settings.mcp:
        what = "the agents as tools for MCP hosts (streamable HTTP)"
        found.append(Door("MCP", f"{base}{MCP_PATH}", what))
    if settings.a2a:
        what = f"the agent card; JSON-RPC at {base}{A2A_RPC_PATH}"
        found.append(Door("A2A", f"{base}{A2A_CARD_PATH}", what))
    return found


def front_door_routes(settings: Settings) -> list[Route]:
    async def front_door(request: Request) -> Response:
        root = str(request.scope.get("root_path", "")).rstrip("/")
        if settings.console and _wants_html(request):
            return RedirectResponse(f"{root}{CONSOLE_PATH}/", 302)
        base = (settings.public_url or f"{request.url.scheme}://{request.url.netloc}{root}").rstrip(
            "/"
        )
        listed = doors(settings, base)
        if _wants_html(request):
            return HTMLResponse(_page(listed))
        return JSONResponse({"doors": [door.__dict__ for door in listed]})

    return [Route("/", front_door, methods=["GET", "HEAD"])]


def _wants_html(request: Request) -> bool:
    return "text/html" in request.headers.get("accept", "")


def _page(listed: list[Door]) -> str:
    items = "\n".join(
        f'<li><strong>{html.escape(d.name)}</strong>: <a href="{html.escape(d.url)}">'
        f"{html.escape(d.url)}</a> ({html.escape(d.what)})</li>"
        for d in listed
    )
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>Outrider</title></head><body><main><h1>Outrider</h1>"
        "<p>This port serves these doors (the console is turned off here):</p>"
        f"<ul>\n{items}\n</ul>"
        "<p>gRPC is served on its own port.</p></main></body></html>"
    )
