"""What the REST port serves: the REST/SSE API and, beside it, the console, the A2A agent and
the MCP server.

Edges never import one another (design §11); this module is the one place that puts several of
them on one port. Each edge builds its own routes over the core; the REST edge's server runs them
behind its observing, browser-guard and authentication middleware, minus the paths an edge
handles itself.
"""

from __future__ import annotations

from starlette.routing import Mount, Route

from outrider.server.a2a_edge.app import build_a2a
from outrider.server.console_edge.answer_link import HIDDEN_PREFIX
from outrider.server.console_edge.app import MOUNT_PATH, build_console
from outrider.server.core.runs import RunManager
from outrider.server.mcp_edge.app import MOUNT_PATH as MCP_PATH
from outrider.server.mcp_edge.app import McpEdge
from outrider.server.rest_edge.app import MountedEdge
from outrider.server.rest_edge.server import RestServer
from outrider.server.security.authn import Keyring
from outrider.server.settings import Settings


def rest_server(settings: Settings, runs: RunManager, keyring: Keyring) -> RestServer:
    """The REST port's server with every edge the settings ask for."""
    return RestServer(settings, runs, keyring, edges_beside_the_api(runs, settings, keyring))


def edges_beside_the_api(
    runs: RunManager, settings: Settings, keyring: Keyring
) -> list[MountedEdge]:
    edges: list[MountedEdge] = []
    if settings.console:
        # The console signs people in with sessions and guards its forms itself.
        console = Mount(MOUNT_PATH, build_console(runs, settings, keyring))
        edges.append(
            MountedEdge(
                routes=[console],
                own_auth=(MOUNT_PATH,),
                own_guard=(MOUNT_PATH,),
                hidden_prefixes=(HIDDEN_PREFIX,),
            )
        )
    if settings.a2a:
        # The A2A agent authenticates its callers and refuses bodies that are not JSON itself
        # (its card is public; its refusals are JSON-RPC errors); CORS is the API's.
        a2a = build_a2a(runs, settings, keyring)
        edges.append(MountedEdge(routes=a2a.routes, own_auth=a2a.paths, own_media_check=a2a.paths))
    if settings.mcp:
        edges.append(_mcp(runs, settings, keyring))
    return edges


def _mcp(runs: RunManager, settings: Settings, keyring: Keyring) -> MountedEdge:
    """The MCP edge authenticates its callers and guards hosts and origins itself (the MCP
    transport's rules); its session manager runs while the server serves, and its sessions
    close once their calls have ended when the server stops."""
    mcp = McpEdge(runs, settings, keyring)
    return MountedEdge(
        routes=[Route(MCP_PATH, mcp.app)],
        own_auth=(MCP_PATH,),
        own_guard=(MCP_PATH,),
        lifecycle=mcp,
    )
