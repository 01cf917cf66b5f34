"""Providers tried in configured order until one answers, with a cache per provider and counts
for the run's metrics."""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import asdict, dataclass, field

from outrider.server.fetch.cache import SqliteCache
from outrider.server.search.base import SearchError, SearchProvider, SearchResult

log = logging.getLogger(__name__)


class AllProvidersFailed(Exception):
    """No provider of the chain could answer a query; the message lists why, per provider."""


@dataclass
class SearchStats:
    searches: Counter[str] = field(default_factory=Counter)  # answered, by provider
    cached: Counter[str] = field(default_factory=Counter)  # answered from cache, by provider
    calls: int = 0  # provider calls, failed ones included
    failed_calls: int = 0

    @property
    def success_rate(self) -> float:
        return (self.calls - self.failed_calls) / self.calls if self.calls else 1.0


class SearchChain:
    def __init__(
        self, providers: list[SearchProvider], cache: SqliteCache | None, count: int
    ) -> None:
        self.providers = providers
        self.stats = SearchStats()
        self._cache = cache
        self._count = count

    async def search(self, query: str, use_cache: bool = True) -> list[SearchResult]:
        errors = []
        for provider in self.providers:
            key = f"{provider.name}\n{self._count}\n{query}"
            if use_cache and self._cache is not None:
                hit = self._cache.get(key)
                if hit is not None:
                    self.stats.searches[provider.name] += 1
                    self.stats.cached[provider.name] += 1
                    return [SearchResult(**item) for item in hit]
            try:
                results = await self._call(provider, query)
            except SearchError as error:
                log.warning("search provider failed: %s", error)
                errors.append(str(error))
                continue
            if self._cache is not None:
                self._cache.put(key, [asdict(result) for result in results])
            return results
        raise AllProvidersFailed("; ".join(errors) or "no search provider is configured")

    async def _call(self, provider: SearchProvider, query: str) -> list[SearchResult]:
        self.stats.calls += 1
        try:
            results = await provider.search(query, self._count)
        except SearchError:
            self.stats.failed_calls += 1
            raise
        self.stats.searches[provider.name] += 1
        return results
