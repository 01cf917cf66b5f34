"""Deep mode: prefetching the query's URL, judging, a revision, per-model tokens, full text."""

from __future__ import annotations

from pathlib import Path

from outrider.v1 import research_events_pb2 as re_pb
from outrider.v1 import run_event_pb2
from tests.research.conftest import ResearchCaseFactory, render_scenario
from tests.research.events import complete, payloads, research_names
from tests.research.web import Server


async def test_a_deep_run_prefetches_judges_and_revises_until_approved(
    research_case: ResearchCaseFactory, web: Server, tmp_path: Path
) -> None:
    writer = render_scenario("research_deep_writer.yaml", web.url, tmp_path / "writer.yaml")
    case = await research_case(
        "research_deep.yaml", settings={"role_models": {"writer": f"scripted:{writer}"}}
    )
    query = f"Bees communicate where food is: how? Start from {case.web.url}/waggle-dance.html."
    events = await case.research(query, re_pb.RESEARCH_MODE_DEEP, include_full_text=True)
    names = research_names(events)
    assert names[:5] == [
        "start",
        "prefetching:start",
        "prefetching:end",
        "planning:start",
        "planning:end",
    ]
    assert names[-11:] == [
        "outlining:start",
        "outlining:end",
        "writing:start",
        "writing:end",
        "judging:start",
        "judging:end",
        "writing:start",
        "writing:end",
        "judging:start",
        "judging:end",
        "complete",
    ]
    check_prefetching(events, case.web.url)
    check_judging(events)

    done = complete(events)
    meta = done.metadata
    assert "One second of waggling" in done.report  # the approved revision is published
    assert [j.score for j in meta.judgments] == [5.5, 8.5]
    assert payloads(events, "iteration_end")[0].stop_reason == re_pb.STOP_REASON_COVERAGE_SUFFICIENT
    assert meta.url_sources.user_provided == 1
    cited = meta.cited_pages[0]
    assert cited.url == f"{case.web.url}/waggle-dance.html"
    assert cited.url_source == re_pb.URL_SOURCE_USER_INPUT and len(cited.claims) == 2
    assert "waggle run" in cited.full_text
    tokens = meta.metrics.tokens
    assert set(tokens) == {"scripted:research-deep", "scripted:research-deep-writer"}
    writer_usage = tokens["scripted:research-deep-writer"]
    assert (writer_usage.input, writer_usage.output) == (4900, 610)
    assert {"judging", "writing", "outlining", "prefetching"} <= set(meta.metrics.phases)


def check_judging(events: list[run_event_pb2.RunEvent]) -> None:
    writes = payloads(events, "writing_start")
    assert [(w.attempt, w.is_revision, w.max_attempts) for w in writes] == [
        (1, False, 2),
        (2, True, 2),
    ]
    assert not writes[0].HasField("previous_score") and writes[1].previous_score == 5.5
    judged = payloads(events, "judging_end")
    assert [(j.attempt, j.score, j.approved) for j in judged] == [(1, 5.5, False), (2, 8.5, True)]
    assert judged[0].feedback == "Add the distance code." and not judged[1].HasField("feedback")
    assert {j.max_attempts for j in payloads(events, "judging_start")} == {2}


def check_prefetching(events: list[run_event_pb2.RunEvent], web: str) -> None:
    prefetch = payloads(events, "prefetching_start")[0]
    assert list(prefetch.urls) == [f"{web}/waggle-dance.html"] and prefetch.url_count == 1
    assert payloads(events, "prefetching_end")[0].fetched == 1
    assert payloads(events, "planning_start")[0].has_prefetched_context
