"""A server that cannot run any agent says so in its readiness: grpc.health NOT_SERVING for
outrider.v1.RunService and REST /healthz 503 with the reason per kind of run, while the process
("") stays SERVING for liveness probes. Before, both said SERVING and every run was refused."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from outrider.server.agents import production_agents
from outrider.server.browser.agent import BrowserAgent
from outrider.server.core.runs.agent import AgentRegistry
from outrider.server.service import Outrider
from outrider.server.settings import Settings
from outrider.server.settings.providers import ProviderSettings
from outrider.v1 import run_pb2
from tests.support.harness import REPO_ROOT, settings_for_tests

SCENARIO = REPO_ROOT / "tests" / "fixtures" / "scenarios" / "research_fast.yaml"
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
NO_KEYS = ProviderSettings(openai_api_key="", anthropic_api_key="", gemini_api_key="")

Started = Callable[..., Awaitable[Outrider]]


@pytest.fixture
async def serve(tmp_path: Path) -> AsyncIterator[Started]:
    """Starts a whole server (both edges) on free ports with these settings and agents."""
    servers: list[Outrider] = []

    async def start(agents: Callable[[Settings], AgentRegistry], **overrides: Any) -> Outrider:
        settings = settings_for_tests(
            tmp_path / f"server{len(servers)}", rest_port=0, providers=NO_KEYS, **overrides
        )
        server = Outrider(settings, agents(settings))
        await server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.stop()


async def health(server: Outrider, service: str) -> int:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc.port}") as channel:
        request = health_pb2.HealthCheckRequest(service=service)
        return (await health_pb2_grpc.HealthStub(channel).Check(request)).status


async def healthz(server: Outrider) -> httpx.Response:
    assert server.rest is not None
    async with httpx.AsyncClient() as client:
        return await client.get(f"http://127.0.0.1:{server.rest.port}/healthz")


def browser_only(settings: Settings) -> AgentRegistry:
    return {run_pb2.RUN_KIND_AUTOMATE: BrowserAgent(settings)}


async def test_without_a_model_runs_cannot_start_and_readiness_says_so(serve: Started) -> None:
    server = await serve(production_agents, model="")
    assert await health(server, "outrider.v1.RunService") == NOT_SERVING
    assert await health(server, "") == SERVING  # the process is alive: no restart loop
    response = await healthz(server)
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "not_serving" and body["reason"] == "NO_AGENT_CAN_RUN"
    assert set(body["problems"]) == {"automate", "research"}
    assert "OUTRIDER_MODEL" in body["problems"]["automate"]


async def test_a_model_without_its_key_is_named(serve: Started) -> None:
    server = await serve(production_agents, model="openai:gpt-4.1-mini")
    assert await health(server, "outrider.v1.RunService") == NOT_SERVING
    problems = (await healthz(server)).json()["problems"]
    key = "set OPENAI_API_KEY"
    assert problems["research"] == f"model 'openai:gpt-4.1-mini' needs an API key: {key}"


async def test_a_chromium_that_does_not_start_stops_browser_runs_only(
    serve: Started, tmp_path: Path
) -> None:
    broken = tmp_path / "chromium"
    broken.write_text("#!/bin/sh\necho 'error while loading shared libraries' >&2\nexit 127\n")
    broken.chmod(0o755)
    model = f"scripted:{SCENARIO}"
    both = await serve(production_agents, model=model, chromium_path=broken)
    assert await health(both, "outrider.v1.RunService") == SERVING  # research runs can start
    assert (await healthz(both)).status_code == 200
    problem = both.grpc.runs.readiness.problems["automate"]
    assert problem.startswith(f"Chromium ({broken}) does not start: exit status 127")
    assert "error while loading shared libraries" in problem
    assert "OUTRIDER_CHROMIUM_PATH" in problem

    missing = await serve(browser_only, model=model, chromium_path=tmp_path / "no-such-chromium")
    assert await health(missing, "outrider.v1.RunService") == NOT_SERVING
    problems = (await healthz(missing)).json()["problems"]
    assert "does not start: No such file or directory" in problems["automate"]


async def test_a_working_server_is_ready_and_says_so_until_it_stops(serve: Started) -> None:
    server = await serve(browser_only, model=f"scripted:{SCENARIO}")
    assert server.grpc.runs.readiness.problems == {}  # the real Chromium and driver start
    assert await health(server, "outrider.v1.RunService") == SERVING
    assert (await healthz(server)).json() == {"status": "serving"}
    server.grpc.runs.stop_accepting()  # what SIGTERM does first
    response = await healthz(server)
    assert response.status_code == 503 and response.json()["reason"] == "SHUTTING_DOWN"


async def test_remote_browsers_and_api_replicas_need_no_local_chromium(
    serve: Started, tmp_path: Path, postgres_url: str
) -> None:
    nowhere = tmp_path / "no-such-chromium"
    remote = await serve(
        browser_only,
        model=f"scripted:{SCENARIO}",
        chromium_path=nowhere,
        browser={"cdp_endpoints": ("http://127.0.0.1:9",)},
    )
    assert await health(remote, "outrider.v1.RunService") == SERVING
    # An API replica executes no run: it relays starts to the workers.
    api = await serve(
        production_agents,
        model="",
        chromium_path=nowhere,
        role="api",
        database_url=postgres_url,
        cluster_secret="s" * 32,
    )
    assert await health(api, "outrider.v1.RunService") == SERVING
    assert (await healthz(api)).status_code == 200
