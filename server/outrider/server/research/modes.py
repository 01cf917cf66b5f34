"""The research modes as hard budgets: one table, mirrored in the README."""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType

from outrider.v1 import research_events_pb2 as re


@dataclass(frozen=True)
class ModeBudget:
    """Limits of one run. Searches, fetches and tokens are totals over the whole run."""

    name: str
    iterations: int
    searches: int  # search queries issued (a fallback to the next provider is the same query)
    fetches: int  # pages fetched, cached ones included
    tokens: int  # model tokens, input + output, all roles
    wall_time: float  # seconds
    judge: bool
    max_revisions: int  # rewrites after a rejecting judgment
    queries_per_iteration: int
    pages_per_iteration: int  # search results fetched per iteration
    follows_per_iteration: int  # extracted links followed per iteration
    analyse: bool  # model analysis, evaluation and outline (fast mode reads pages only)

    @property
    def max_attempts(self) -> int:
        return 1 + self.max_revisions if self.judge else 1

    @property
    def roles(self) -> tuple[str, ...]:
        """Model roles this mode calls."""
        roles = ("planner", "analyser", "writer") if self.analyse else ("planner", "writer")
        return (*roles, "judge") if self.judge else roles


# fmt: off
_TABLE = (
    #          name   iterations searches fetches tokens wall s judge revisions q/i  p/i f/i analyse
    ModeBudget("fast",      1,  4,   8,    60_000,   90, False, 0,   4,  8,  0, False),
    ModeBudget("balanced",  3, 12,  30,   250_000,  240, False, 0,   4,  8,  2, True),
    ModeBudget("deep",      5, 25,  60,   600_000,  480, True,  1,   5, 10,  3, True),
    ModeBudget("max",       5, 40, 100, 1_200_000,  900, True,  2,   8, 16,  4, True),
    ModeBudget("ultra",    10, 80, 200, 3_000_000, 1800, True,  3,   8, 16,  4, True),
)
# fmt: on
MODES: MappingProxyType[int, ModeBudget] = MappingProxyType(
    {re.ResearchMode.Value(f"RESEARCH_MODE_{m.name.upper()}"): m for m in _TABLE}
)


def budget_for(mode: int, wall_time_cap: float | None = None) -> ModeBudget:
    """The mode's budget (fast when unspecified), its wall time capped by configuration."""
    budget = MODES.get(mode, MODES[re.RESEARCH_MODE_FAST])
    if wall_time_cap is not None and wall_time_cap < budget.wall_time:
        return replace(budget, wall_time=wall_time_cap)
    return budget


def effective_mode(mode: int) -> int:
    return mode if mode in MODES else re.RESEARCH_MODE_FAST
