"""Before iterating: read the pages the user linked, then plan."""

from __future__ import annotations

import re
from typing import cast

from outrider.server.core.events.names import by_wire_value
from outrider.server.fetch.page import FetchOutcome
from outrider.server.fetch.shown import shown_host
from outrider.server.research import prompts
from outrider.server.research.budget import BudgetExhausted
from outrider.server.research.llm import ModelFailed
from outrider.server.research.reading import read
from outrider.server.research.run import PhaseFailed, ResearchRun
from outrider.server.research.schemas import PlanOut
from outrider.server.research.state import Candidate, Source
from outrider.v1 import research_events_pb2 as re_pb

_URL = re.compile(r"https?://[^\s<>\"'()\[\]{}]+")
MAX_USER_URLS = 5
_COMPLEXITY = cast(
    "dict[str, re_pb.QueryComplexity]", by_wire_value(re_pb.QueryComplexity.DESCRIPTOR)
)


def user_urls(query: str) -> list[str]:
    urls = [url.rstrip(".,;:!?") for url in _URL.findall(query)]
    return list(dict.fromkeys(urls))[:MAX_USER_URLS]


async def prefetch(run: ResearchRun) -> list[Source]:
    urls = user_urls(run.state.query)
    if not urls:
        return []
    run.emit(
        "prefetching_start",
        re_pb.PrefetchingStart(
            message=f"Fetching {len(urls)} URLs from the query", url_count=len(urls), urls=urls
        ),
    )
    with run.metrics.phase("prefetching"):
        run.state.seen_urls.update(urls)
        candidates = [Candidate(url, re_pb.URL_SOURCE_USER_INPUT) for url in urls]
        failures: list[tuple[Candidate, FetchOutcome]] = []
        sources = await read(run, candidates, iteration=1, failures=failures)
    failed = len(failures)
    fetched = len(urls) - failed  # a near-duplicate of another URL was fetched too
    run.emit(
        "prefetching_end",
        re_pb.PrefetchingEnd(
            message=f"Fetched {fetched} of {len(urls)} URLs" + _not_fetched(urls, failures),
            fetched=fetched,
            failed=failed,
        ),
    )
    return sources


async def reread(run: ResearchRun) -> list[Source]:
    """A run in a session reads the pages its earlier runs cited again: from the session's
    pages, not the web, unless they are stale (see session_pages)."""
    if not run.reread:
        return []
    run.state.seen_urls.update(candidate.url for candidate in run.reread)
    with run.metrics.phase("prefetching"):
        return await read(run, run.reread, iteration=1)


def _not_fetched(urls: list[str], failures: list[tuple[Candidate, FetchOutcome]]) -> str:
    """Why each URL of the query was not read, naming it by position and host only."""
    reasons = [
        f"URL {urls.index(c.url) + 1} ({shown_host(c.url)}) {outcome.why_not()}"
        for c, outcome in failures
    ]
    return ". Not fetched: " + ". ".join(reasons) if reasons else ""


async def plan(run: ResearchRun, prefetched: list[Source]) -> None:
    state = run.state
    run.emit(
        "planning_start",
        re_pb.PlanningStart(
            message="Planning the research", has_prefetched_context=bool(prefetched)
        ),
    )
    with run.metrics.phase("planning"):
        try:
            out = await run.llm.structured(
                "planner",
                "planner",
                prompts.PLANNER,
                prompts.plan_request(state.query, prefetched, run.earlier),
                PlanOut,
            )
        except (ModelFailed, BudgetExhausted) as error:
            raise PhaseFailed(
                re_pb.RESEARCH_ACTIVITY_PLANNING, "PLANNING_FAILED", str(error)
            ) from None
    state.objective, state.plan = out.objective, out.plan
    state.questions, state.initial_queries = list(out.questions), _unique(out.queries)
    state.complexity = _COMPLEXITY[out.complexity]
    run.emit(
        "planning_end",
        re_pb.PlanningEnd(
            message=f"Planned {len(state.questions)} questions and {len(state.initial_queries)} "
            "queries",
            complexity=state.complexity,
            objective=state.objective,
            plan=state.plan,
            queries=state.initial_queries,
            questions=state.questions,
        ),
    )


def _unique(queries: list[str]) -> list[str]:
    return list(dict.fromkeys(q.strip() for q in queries if q.strip()))
