"""The searching phase of an iteration: queries through the provider chain, new URLs queued."""

from __future__ import annotations

import asyncio
from urllib.parse import urldefrag

from outrider.server.research.run import PhaseFailed, ResearchRun
from outrider.server.research.state import Candidate
from outrider.server.search.base import SearchResult
from outrider.server.search.chain import AllProvidersFailed
from outrider.v1 import research_events_pb2 as re


async def search(run: ResearchRun, iteration: int, queries: list[str]) -> None:
    state = run.state
    run.emit(
        "searching_start",
        re.SearchingStart(
            iteration=iteration, message=f"Searching {len(queries)} queries", queries=queries
        ),
    )
    with run.metrics.phase("searching"):
        state.executed_queries.append(list(queries))
        run.budget.searches_used += len(queries)
        answers = await asyncio.gather(
            *(run.search.search(q, run.use_cache) for q in queries), return_exceptions=True
        )
    failures = [a for a in answers if isinstance(a, AllProvidersFailed)]
    if queries and len(failures) == len(queries):
        raise PhaseFailed(
            re.RESEARCH_ACTIVITY_SEARCHING,
            "SEARCH_FAILED",
            f"every search provider failed: {failures[0]}",
            iteration,
        )
    for answer in answers:
        if isinstance(answer, BaseException) and not isinstance(answer, AllProvidersFailed):
            raise answer
    found, new = _queue(run, queries, [a if isinstance(a, list) else [] for a in answers])
    run.emit(
        "searching_end",
        re.SearchingEnd(
            iteration=iteration,
            message=f"Found {found} URLs, {new} new",
            urls_found=found,
            urls_new=new,
        ),
    )


def _queue(
    run: ResearchRun, queries: list[str], answers: list[list[SearchResult]]
) -> tuple[int, int]:
    """Queues unseen URLs, interleaving the queries' rankings; returns (found, new) counts."""
    state = run.state
    found: dict[str, SearchResult] = {}
    for rank in range(max((len(a) for a in answers), default=0)):
        for query, results in zip(queries, answers, strict=True):
            if rank < len(results):
                url = urldefrag(results[rank].url).url
                found.setdefault(url, results[rank])
                state.url_queries.setdefault(url, [])
                if query not in state.url_queries[url]:
                    state.url_queries[url].append(query)
    new = [url for url in found if url not in state.seen_urls]
    state.seen_urls.update(new)
    state.pending.extend(
        Candidate(url, re.URL_SOURCE_SEARCH_RESULT, found[url].title) for url in new
    )
    return len(found), len(new)
