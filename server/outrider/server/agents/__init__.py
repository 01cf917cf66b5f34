"""The production agents. The browser agent and the research agent land in their own issues; until
then their kinds are absent here and the core answers UNIMPLEMENTED for them."""

from __future__ import annotations

from outrider.server.core.agent import AgentRegistry
from outrider.server.settings import Settings


def production_agents(settings: Settings) -> AgentRegistry:
    return {}
