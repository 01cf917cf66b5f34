"""Counts and timings of one run, turned into the complete event's ResearchMetrics."""

from __future__ import annotations

import contextlib
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from outrider.server.fetch.page import FetchOutcome
from outrider.server.models.base import Usage
from outrider.server.models.pricing import estimated_cost
from outrider.server.search.chain import SearchStats
from outrider.server.settings.providers import Price
from outrider.v1 import research_events_pb2 as re

# Told of each model call: (input tokens, output tokens, estimated cost or None).
CountUsage = Callable[[int, int, float | None], None]


@dataclass
class RunMetrics:
    prices: Mapping[str, Price] = field(default_factory=dict)  # for cost estimates
    count_usage: CountUsage | None = None  # the run's record (RunContext.count_usage)
    started: float = field(default_factory=time.monotonic)
    phases: dict[str, float] = field(default_factory=lambda: defaultdict(float))  # ms
    tokens: dict[str, Usage] = field(default_factory=dict)  # model -> its usage so far
    fetch_attempts: int = 0  # URLs handed to the fetcher: what the fetch budget counts
    fetches: int = 0  # requests made (network or cache)
    fetched_ok: int = 0
    cached_fetches: int = 0
    robots_blocked: int = 0
    guard_blocked: int = 0
    analyses: int = 0
    analyses_failed: int = 0

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        began = time.monotonic()
        try:
            yield
        finally:
            self.phases[name] += (time.monotonic() - began) * 1000

    def _token_usage(self, model: str, used: Usage) -> re.TokenUsage:
        usage = re.TokenUsage(input=used.input_tokens, output=used.output_tokens)
        cost = estimated_cost(self.prices, model, used)
        if cost is not None:
            usage.estimated_cost_usd = cost
        return usage

    def add_usage(self, model: str, usage: Usage) -> None:
        self.tokens[model] = self.tokens.get(model, Usage()) + usage
        if self.count_usage is not None:
            cost = estimated_cost(self.prices, model, usage)
            self.count_usage(usage.input_tokens, usage.output_tokens, cost)

    @property
    def total_tokens(self) -> int:
        return sum(used.total_tokens for used in self.tokens.values())

    def record_fetch(self, outcome: FetchOutcome) -> None:
        self.fetch_attempts += 1
        self.robots_blocked += outcome.robots_blocked
        self.guard_blocked += outcome.guard_blocked
        if outcome.requested:
            self.fetches += 1
            self.cached_fetches += outcome.cached
            self.fetched_ok += outcome.page is not None

    def to_proto(self, search: SearchStats, iterations: int) -> re.ResearchMetrics:
        analysed_total = self.analyses + self.analyses_failed
        return re.ResearchMetrics(
            cached_fetches=self.cached_fetches,
            cached_searches=dict(search.cached),
            fetches=self.fetches,
            iterations=iterations,
            phases={name: re.PhaseTiming(duration=ms) for name, ms in self.phases.items()},
            robots_blocked=self.robots_blocked,
            searches=dict(search.searches),
            success_rates=re.SuccessRates(
                analyzes=self.analyses / analysed_total if analysed_total else 1.0,
                fetches=self.fetched_ok / self.fetches if self.fetches else 1.0,
                searches=search.success_rate,
            ),
            tokens={model: self._token_usage(model, used) for model, used in self.tokens.items()},
            total_duration=(time.monotonic() - self.started) * 1000,
        )
