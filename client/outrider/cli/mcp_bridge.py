"""`outrider mcp`: Outrider's MCP tools on stdin/stdout, for desktop MCP clients (which start it
as a subprocess), calling a running server over gRPC with the global options' target and key.

stdout carries only MCP messages; logs go to stderr. Runs outlive the bridge: a client that
quits leaves its runs running unless they were started with cancel_on_disconnect.
"""

from __future__ import annotations

import logging
from importlib.metadata import PackageNotFoundError, version

from mcp.server.request_state import RequestStateSecurity
from mcp.server.stdio import stdio_server

from outrider.cli.run import Config
from outrider.mcp.grpc_backend import GrpcBackend
from outrider.mcp.server import build_server


async def serve_stdio(config: Config) -> int:
    logging.basicConfig(level=logging.WARNING, format="outrider mcp: %(levelname)s %(message)s")
    async with config.client() as client:
        backend = GrpcBackend(client)
        # One process holds every round of a call: a key of its own seals the request states.
        server = build_server(lambda ctx: backend, _version(), RequestStateSecurity.ephemeral())
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    return 0


def _version() -> str:
    try:
        return version("outrider")
    except PackageNotFoundError:
        return "0"
