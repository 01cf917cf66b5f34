"""Search providers: their wire formats, the fallback chain, its per-provider cache, and a run
whose providers are all down."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from outrider.server.fetch.cache import SqliteCache
from outrider.server.search.base import SearchError
from outrider.server.search.chain import AllProvidersFailed, SearchChain
from outrider.server.search.corpus import CorpusIndex, CorpusProvider, fts_query
from outrider.server.search.web_apis import BraveProvider, SearxngProvider, TavilyProvider
from outrider.v1 import research_events_pb2 as re_pb
from outrider.v1 import run_pb2, run_service_pb2
from tests.research.conftest import KEYS, ResearchCaseFactory
from tests.research.events import complete, payloads, research_names
from tests.research.web import SearchBehaviour, Server

FAST = re_pb.RESEARCH_MODE_FAST


async def test_each_web_api_speaks_its_wire_format(search_apis: Server, web: Server) -> None:
    async with httpx.AsyncClient() as client:
        providers = [
            SearxngProvider(f"{search_apis.url}/searxng", client),
            BraveProvider(f"{search_apis.url}/brave/res/v1/web/search", KEYS["brave"], client),
            TavilyProvider(f"{search_apis.url}/tavily/search", KEYS["tavily"], client),
        ]
        for provider in providers:
            results = await provider.search("varroa mite", 3)
            assert results and len(results) <= 3
            assert results[0].url == f"{web.url}/varroa.html"
            assert results[0].title == "The varroa mite" and results[0].snippet
            assert {r.provider for r in results} == {provider.name}


async def test_a_keyed_api_refusing_the_key_is_a_search_error(search_apis: Server) -> None:
    async with httpx.AsyncClient() as client:
        for provider in (
            BraveProvider(f"{search_apis.url}/brave/res/v1/web/search", "wrong", client),
            TavilyProvider(f"{search_apis.url}/tavily/search", "wrong", client),
            BraveProvider(f"{search_apis.url}/brave/res/v1/web/search", "", client),
        ):
            with pytest.raises(SearchError, match=provider.name):
                await provider.search("varroa", 3)


async def test_the_corpus_ranks_with_fts5_and_quotes_every_word(corpus: Path, web: Server) -> None:
    provider = CorpusProvider(CorpusIndex(corpus))
    results = await provider.search('varroa "mite" NEAR( OR -', 5)
    assert results[0].url == f"{web.url}/varroa.html" and results[0].provider == "corpus"
    assert fts_query('a "b" NEAR(') == '"a" OR "b" OR "near"'
    assert await provider.search("?!", 5) == []


async def test_the_chain_falls_back_in_order_and_caches_per_provider(
    search_apis: Server, search_behaviour: SearchBehaviour, tmp_path: Path
) -> None:
    search_behaviour.failing = {"searxng"}
    cache = SqliteCache(tmp_path / "cache.sqlite3", "searches", ttl=60)
    async with httpx.AsyncClient() as client:
        chain = SearchChain(
            [
                SearxngProvider(f"{search_apis.url}/searxng", client),
                BraveProvider(f"{search_apis.url}/brave/res/v1/web/search", KEYS["brave"], client),
            ],
            cache,
            count=4,
        )
        first = await chain.search("honey production")
        again = await chain.search("honey production")
        fresh = await chain.search("honey production", use_cache=False)
    assert {r.provider for r in first} == {"brave"} and first == again == fresh
    assert chain.stats.searches == {"brave": 3} and chain.stats.cached == {"brave": 1}
    assert chain.stats.calls == 5 and chain.stats.failed_calls == 3  # searxng each time


async def test_a_chain_with_every_provider_down_says_why(tmp_path: Path) -> None:
    chain = SearchChain([CorpusProvider(CorpusIndex(tmp_path / "none.sqlite3"))], None, 3)
    with pytest.raises(AllProvidersFailed, match="corpus: no index"):
        await chain.search("bees")


async def test_a_run_falls_back_to_the_next_provider_when_one_fails(
    research_case: ResearchCaseFactory, search_behaviour: SearchBehaviour
) -> None:
    search_behaviour.failing = {"brave"}
    case = await research_case("research_fast.yaml", providers=("brave", "tavily"))
    done = complete(await case.research("Why do colonies die?", FAST))
    metrics = done.metadata.metrics
    assert metrics.searches == {"tavily": 2}
    assert metrics.success_rates.searches == 0.5
    assert done.metadata.cited_pages and metrics.fetches > 0


async def test_all_providers_down_fails_the_run_with_an_error_while_searching(
    research_case: ResearchCaseFactory, search_behaviour: SearchBehaviour, tmp_path: Path
) -> None:
    search_behaviour.failing = {"searxng"}
    case = await research_case("research_fast.yaml", corpus_index=tmp_path / "missing.sqlite3")
    events = await case.research("Why do colonies die?", FAST)
    assert research_names(events)[-3:] == ["iteration:start", "searching:start", "error"]
    error = payloads(events, "error")[0]
    assert error.activity == re_pb.RESEARCH_ACTIVITY_SEARCHING and error.iteration == 1
    assert error.error.name == "SEARCH_FAILED"
    assert "corpus: no index" in error.message and "searxng: HTTP 503" in error.message
    run = (await case.harness.runs.GetRun(run_service_pb2.GetRunRequest(name=events[0].run))).run
    assert run.state == run_pb2.RUN_STATE_FAILED and run.outcome.error_code == "SEARCH_FAILED"
