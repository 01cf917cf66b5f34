"""Builds a run's search chain from configuration."""

from __future__ import annotations

from pathlib import Path

import httpx

from outrider.server.fetch.cache import SqliteCache
from outrider.server.search.base import SearchProvider
from outrider.server.search.chain import SearchChain
from outrider.server.search.corpus import CorpusIndex, CorpusProvider
from outrider.server.search.web_apis import BraveProvider, SearxngProvider, TavilyProvider
from outrider.server.settings.research import SEARCH_PROVIDERS, ResearchSettings


def build_provider(
    name: str, settings: ResearchSettings, data_dir: Path, client: httpx.AsyncClient
) -> SearchProvider:
    if name == "corpus":
        return CorpusProvider(CorpusIndex(settings.corpus_path(data_dir)))
    if name == "searxng":
        return SearxngProvider(settings.searxng_url, client)
    if name == "brave":
        return BraveProvider(settings.brave_url, settings.brave_api_key.get_secret_value(), client)
    if name == "tavily":
        key = settings.tavily_api_key.get_secret_value()
        return TavilyProvider(settings.tavily_url, key, client)
    raise ValueError(f"unknown search provider {name!r}; known: {', '.join(SEARCH_PROVIDERS)}")


def build_chain(
    settings: ResearchSettings, data_dir: Path, cache: SqliteCache | None, client: httpx.AsyncClient
) -> SearchChain:
    providers = [build_provider(n, settings, data_dir, client) for n in settings.search_providers]
    return SearchChain(providers, cache, settings.search_results)
