"""A research session: a follow-up question sees the earlier report, reads the pages it cited from
the session (not the web), and cites them beside new ones; counted at the fixture web."""

from __future__ import annotations

from typing import Any

from outrider.v1 import params_pb2, run_pb2
from outrider.v1 import research_events_pb2 as re_pb
from tests.research.conftest import ResearchCaseFactory
from tests.research.events import complete
from tests.sessions.support import create

FAST = re_pb.RESEARCH_MODE_FAST
FIRST, FOLLOW_UP = "Why do honey bee colonies die?", "Go deeper on the varroa finding"


def planner(queries: list[str], expect: tuple[str, ...] = ()) -> dict[str, Any]:
    data = {
        "objective": "Explain colony losses.",
        "plan": "Search, read, write.",
        "complexity": "simple",
        "questions": ["What kills colonies?"],
        "queries": queries,
    }
    return {"role": "planner", "expect": list(expect), "reply": {"data": data}}


def writer(text: str, expect: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"role": "writer", "expect": list(expect), "reply": {"text": text}}


SCENARIO = {
    "branches": [
        {  # first: its requests also quote the first question (the session's memory)
            "name": "follow-up",
            "match": [f"Query:\n{FOLLOW_UP}", "follows earlier ones"],
            "turns": [
                planner(
                    ["foulbrood"],
                    expect=(
                        "follows earlier ones in the same session",
                        "Varroa mites are the leading cause of colony losses",
                        "earlier runs of this session cited",
                        "/varroa.html",
                    ),
                ),
                writer(
                    "Varroa stays the main cause [{{source: varroa.html}}]; American foulbrood "
                    "also kills colonies [{{source: foulbrood.html}}].",
                    expect=("/varroa.html", "/foulbrood.html", "Varroa mites are the leading"),
                ),
            ],
        },
        {  # the same question outside the session
            "name": "alone",
            "match": [f"Query:\n{FOLLOW_UP}"],
            "turns": [
                planner(["foulbrood"]),
                writer("American foulbrood kills colonies [{{source: foulbrood.html}}]."),
            ],
        },
        {
            "name": "first",
            "match": [f"Query:\n{FIRST}"],
            "turns": [
                planner(["varroa colony losses"]),
                writer(
                    "Varroa mites are the leading cause of colony losses [{{source: varroa.html}}]."
                ),
            ],
        },
    ]
}


async def test_a_follow_up_cites_what_the_first_run_read_without_fetching_it_again(
    research_case: ResearchCaseFactory,
) -> None:
    case = await research_case(SCENARIO, fetch_cache_ttl=0, search_cache_ttl=0)
    session = await create(case.harness.channel, kind=run_pb2.RUN_KIND_RESEARCH)
    options = params_pb2.RunOptions(session=session.name)
    first = complete(await case.research(FIRST, FAST, options=options))
    assert [p.url for p in first.metadata.cited_pages] == [f"{case.web.url}/varroa.html"]
    assert case.web.traffic.paths().count("/varroa.html") == 1

    second = complete(await case.research(FOLLOW_UP, FAST, options=options))
    cited = [p.url for p in second.metadata.cited_pages]
    assert cited == [f"{case.web.url}/varroa.html", f"{case.web.url}/foulbrood.html"]
    assert case.web.traffic.paths().count("/varroa.html") == 1  # read from the session
    assert case.web.traffic.paths().count("/foulbrood.html") == 1  # new: from the web
    assert second.metadata.metrics.cached_fetches >= 1

    # Outside the session the same question has nothing to reuse: it fetches what it reads.
    alone = complete(await case.research(FOLLOW_UP, FAST))
    assert alone.metadata.metrics.cached_fetches == 0
    assert case.web.traffic.paths().count("/foulbrood.html") == 2
