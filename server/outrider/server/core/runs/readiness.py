"""Can this server run anything? Each agent checks itself once, at start: the model its settings
name (a provider key, a scenario file) and, for the browser agent, a Chromium that starts. The
server is ready when at least one kind of run can start; until then the edges' readiness says
so (grpc.health `outrider.v1.RunService` NOT_SERVING, REST `/healthz` 503) instead of reporting
SERVING and refusing every run. A run naming a model the operator offers (`options.model`, see
OUTRIDER_MODELS) may still start."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field

from outrider.server.core.runs.agent import Agent, AgentRegistry
from outrider.server.core.runs.observing import kind_label

CHECK_TIMEOUT = 30.0  # seconds an agent's check may take (a Chromium on a loaded machine)


@dataclass(frozen=True)
class Readiness:
    """Why each kind of run ("automate", "research") cannot start; empty when all can."""

    problems: Mapping[str, str] = field(default_factory=dict)
    kinds: int = 0  # kinds of run this server has an agent for

    @property
    def ready(self) -> bool:
        return len(self.problems) < self.kinds or not self.problems

    def summary(self) -> str:
        """One line: which kinds cannot start and why (one reason when they share it)."""
        reasons = set(self.problems.values())
        if len(reasons) == 1:
            return f"{', '.join(self.problems)} runs cannot start: {reasons.pop()}"
        return "; ".join(f"{kind} runs cannot start: {why}" for kind, why in self.problems.items())


async def check_agents(agents: AgentRegistry) -> Readiness:
    kinds = sorted(agents)
    answers = await asyncio.gather(*(_check(agents[kind]) for kind in kinds))
    problems = {kind_label(kind): why for kind, why in zip(kinds, answers, strict=True) if why}
    return Readiness(problems, len(kinds))


async def _check(agent: Agent) -> str:
    try:
        async with asyncio.timeout(CHECK_TIMEOUT):
            return await agent.readiness()
    except TimeoutError:
        return f"its check did not finish within {CHECK_TIMEOUT:g} s"
