"""The production agents, one per run kind. A kind without an agent here is answered with
UNIMPLEMENTED by the core; nothing is faked."""

from __future__ import annotations

from outrider.server.core.runs.agent import Agent, AgentRegistry
from outrider.server.settings import Settings
from outrider.v1 import run_pb2


def production_agents(settings: Settings) -> AgentRegistry:
    agents: dict[int, Agent | None] = {
        run_pb2.RUN_KIND_AUTOMATE: _browser_agent(settings),
        run_pb2.RUN_KIND_RESEARCH: _research_agent(settings),
    }
    return {kind: agent for kind, agent in agents.items() if agent is not None}


def _browser_agent(settings: Settings) -> Agent | None:
    from outrider.server.browser.agent import BrowserAgent  # Playwright loads only when used

    return BrowserAgent(settings)


def _research_agent(settings: Settings) -> Agent | None:
    from outrider.server.research.agent import ResearchAgent

    return ResearchAgent(settings)
