"""The mode's hard budgets, checked before each search, fetch and model call.

A quarter of the wall time and of the tokens is kept back for outlining, writing and judging, so a
run whose research used up its share still writes its report."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from outrider.server.research.metrics import RunMetrics
from outrider.server.research.modes import ModeBudget

WRITING_SHARE = 0.25


class BudgetExhausted(Exception):
    """A budget ran out; the message says which."""


@dataclass
class Budget:
    mode: ModeBudget
    metrics: RunMetrics
    searches_used: int = 0
    started: float = field(default_factory=time.monotonic)

    def time_left(self) -> float:
        return self.started + self.mode.wall_time - time.monotonic()

    def research_time_left(self) -> float:
        return self.time_left() - self.mode.wall_time * WRITING_SHARE

    def tokens_left(self) -> int:
        return self.mode.tokens - self.metrics.total_tokens

    def research_tokens_left(self) -> int:
        return self.tokens_left() - int(self.mode.tokens * WRITING_SHARE)

    def searches_left(self) -> int:
        return max(0, self.mode.searches - self.searches_used)

    def fetches_left(self) -> int:
        return max(0, self.mode.fetches - self.metrics.fetch_attempts)

    def model_stop(self) -> str | None:
        """Why no research model call may start, or None."""
        mode = self.mode
        if self.research_time_left() <= 0:
            return f"the wall-time budget ({mode.wall_time:g}s, a quarter kept for writing) ran out"
        if self.research_tokens_left() <= 0:
            return f"the token budget ({mode.tokens:,}, a quarter kept for writing) ran out"
        return None

    def follow_stop(self) -> str | None:
        """Why no link may be followed (fetched and analysed), or None."""
        if (stop := self.model_stop()) is not None:
            return stop
        if self.fetches_left() == 0:
            return f"the fetch budget ({self.mode.fetches} pages) ran out"
        return None

    def research_stop(self) -> str | None:
        """Why research cannot go on, or None while every research budget has room."""
        mode = self.mode
        if (stop := self.model_stop()) is not None:
            return stop
        if self.searches_left() == 0:
            return f"the search budget ({mode.searches} queries) ran out"
        if self.fetches_left() == 0:
            return f"the fetch budget ({mode.fetches} pages) ran out"
        return None

    def check_writing(self) -> None:
        """Raises BudgetExhausted when nothing is left for another writing-phase model call."""
        if self.time_left() <= 0:
            raise BudgetExhausted(f"the wall-time budget ({self.mode.wall_time:g}s) ran out")
        if self.tokens_left() <= 0:
            raise BudgetExhausted(f"the token budget ({self.mode.tokens:,}) ran out")
