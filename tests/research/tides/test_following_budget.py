"""Issue 11, item 8: following spends fetches, not searches. A balanced run whose third iteration
issues the last of its 12 searches still follows the link its analyser picked there."""

from __future__ import annotations

from typing import Any

from outrider.server.research.modes import MODES
from outrider.v1 import research_events_pb2 as re_pb
from tests.research.conftest import ResearchCaseFactory
from tests.research.events import complete, payloads
from tests.research.scenarios import turn
from tests.research.tides.conftest import results
from tests.research.web import SearchBehaviour

BALANCED = MODES[re_pb.RESEARCH_MODE_BALANCED]
TOPICS = ("tides", "history", "lighthouse")  # what the queries of iterations 1, 2, 3 are about
PAGES = {"tides": "tides.html", "history": "harbour-history.html", "lighthouse": "lighthouse.html"}


def batch(topic: str) -> list[str]:
    return [f"harbour point {topic} {n}" for n in range(1, BALANCED.queries_per_iteration + 1)]


def verdict(url: str, follow: list[str] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    summary = "A page of the tide almanac."
    return {
        "url": url,
        "relevance": "high",
        "reliability": "high",
        "summary": summary,
        **({"follow": list(follow)} if follow else {}),
    }


def evaluation(next_topic: str | None) -> dict[str, Any]:
    data = {
        "coverage": "Moderate" if next_topic else "Solid",
        "should_continue": next_topic is not None,
        "gaps": "More to learn.",
        "next_queries": batch(next_topic) if next_topic else [],
        "question_assessments": [
            {"question": "Who kept the light?", "status": "partial", "findings": "Some."}
        ],
    }
    return turn("evaluator", data=data)


def scenario(web: str) -> dict[str, Any]:
    plan = {
        "objective": "Learn who kept the Harbour Point light.",
        "plan": "Search the almanac, then follow its links.",
        "questions": ["Who kept the light?"],
        "queries": batch("tides"),
    }
    keepers = f"{web}/lighthouse-keepers.html"
    outline = {"outline": "1. Keepers", "direct_answer": "Agnes Trevelyan.",
               "relevant_source_ids": ["S3", "S4"]}  # fmt: skip
    writer = (
        "The light was automated in 1987 [S3]. Its last principal keeper was Agnes Trevelyan, "
        "who left on 14 March 1987 [S4]."
    )
    return {
        "turns": [
            turn("planner", data=plan),
            turn("analyser", data={"pages": [verdict(f"{web}/tides.html")]}),
            evaluation("history"),
            turn("analyser", data={"pages": [verdict(f"{web}/harbour-history.html")]}),
            evaluation("lighthouse"),
            turn("analyser", data={"pages": [verdict(f"{web}/lighthouse.html", [keepers])]}),
            turn("analyser", data={"pages": [verdict(keepers)]}),
            evaluation(None),
            turn("outliner", data=outline),
            turn("writer", text=writer),
        ]
    }


async def test_links_are_followed_after_the_search_budget_is_spent(
    research_case: ResearchCaseFactory, search_behaviour: SearchBehaviour
) -> None:
    case = await research_case(
        scenario("$WEB"), providers=("searxng",), js_fallback=True, per_host_concurrency=2
    )
    web = case.web.url
    search_behaviour.results = lambda query: results(web, *(PAGES[t] for t in TOPICS if t in query))
    events = await case.research("Who kept the Harbour Point light?", re_pb.RESEARCH_MODE_BALANCED)
    done = complete(events)
    meta = done.metadata
    assert sum(meta.metrics.searches.values()) == BALANCED.searches  # spent in iteration 3
    assert [s.link_count for s in payloads(events, "following_start")] == [0, 0, 1]
    followed = payloads(events, "following_end")[-1]
    assert followed.iteration == 3 and followed.followed == 1 and followed.failed == 0
    assert followed.samples[0].url == f"{web}/lighthouse-keepers.html"
    assert meta.metrics.fetches <= BALANCED.fetches
    keepers = next(p for p in meta.cited_pages if p.url.endswith("/lighthouse-keepers.html"))
    assert keepers.depth == 1 and keepers.parent_url == f"{web}/lighthouse.html"
    assert keepers.url_source == re_pb.URL_SOURCE_EXTRACTED_LINK
    assert "Agnes Trevelyan" in keepers.claims[0]
    assert case.web.traffic.paths().count("/lighthouse-keepers.html") == 2  # and in Chromium
    last = payloads(events, "iteration_end")[-1]
    assert last.iteration == 3 and last.stop_reason == re_pb.STOP_REASON_MAX_ITERATIONS
