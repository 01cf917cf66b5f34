"""A real server with both edges on loopback ports (REST on port 0), and raw SSE reading."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from outrider.server.agents import production_agents
from outrider.server.core.runs.agent import AgentRegistry
from outrider.server.grpc_edge.server import OutriderServer
from outrider.server.rest_edge.server import RestServer
from outrider.server.rest_port import rest_server
from outrider.v1 import run_pb2
from tests.support.harness import settings_for_tests
from tests.support.script_agent import ScriptAgent

KEY = "rest-test-key"


@dataclass
class RestCase:
    grpc: OutriderServer
    rest: RestServer
    agent: ScriptAgent

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.rest.port}"

    @property
    def base_url(self) -> str:
        """What the tabstack SDK is given."""
        return f"{self.origin}/v1"

    async def stop(self) -> None:
        await self.rest.stop()
        await self.grpc.stop()


async def start_rest(
    data_dir: Path, agents: AgentRegistry | None = None, production: bool = False, **overrides: Any
) -> RestCase:
    agent = ScriptAgent()
    rest: dict[str, Any] = {"rest_port": 0, "rest_host": "127.0.0.1"}
    settings = settings_for_tests(data_dir, **(rest | overrides))
    if production:
        agents = production_agents(settings)
    registry = agents or {run_pb2.RUN_KIND_AUTOMATE: agent, run_pb2.RUN_KIND_RESEARCH: agent}
    server = OutriderServer(settings, registry)
    await server.start()
    rest = rest_server(settings, server.runs, server.keyring, server.sessions)
    await rest.start()
    return RestCase(server, rest, agent)


@dataclass
class Sse:
    """One parsed SSE block."""

    id: str | None = None
    event: str | None = None
    data: Any = None
    retry: int | None = None
    comments: list[str] = field(default_factory=list)


async def sse_events(response: httpx.Response) -> AsyncIterator[Sse]:
    """Blocks of an SSE response, parsed by the spec (comments kept for inspection)."""
    current = Sse()
    async for line in response.aiter_lines():
        if line == "":
            if current.event is not None or current.data is not None:
                yield current
            current = Sse()
        elif line.startswith(":"):
            current.comments.append(line[1:].strip())
        else:
            name, _, value = line.partition(": ")
            if name == "data":
                current.data = json.loads(value)
            elif name == "retry":
                current.retry = int(value)
            else:
                setattr(current, name, value)
