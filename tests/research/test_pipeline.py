"""A balanced research run over the fixture web: every phase event in order, with the seed's
fields, and a report whose citations all point to pages the run fetched."""

from __future__ import annotations

import time

from outrider.v1 import research_events_pb2 as re_pb
from outrider.v1 import run_event_pb2, run_pb2, run_service_pb2
from tests.research.conftest import ResearchCaseFactory
from tests.research.events import complete, iteration_phases, payloads, research_names

QUERY = "What causes honey bee colony losses?"


async def test_balanced_run_emits_every_phase_in_order_with_the_seed_fields(
    research_case: ResearchCaseFactory,
) -> None:
    case = await research_case("research_balanced.yaml")
    before_ms = time.time() * 1000
    events = await case.research(QUERY)
    names = research_names(events)
    assert names == [
        "start",
        "planning:start",
        "planning:end",
        *iteration_phases(),
        *iteration_phases(),
        "outlining:start",
        "outlining:end",
        "writing:start",
        "writing:end",
        "complete",
    ]
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    stamps = [getattr(e.research, e.research.WhichOneof("event")).timestamp for e in events]
    assert stamps == sorted(stamps) and before_ms - 1 <= stamps[0] <= time.time() * 1000

    check_planning(events)
    check_iterations(events, case.web.url)
    outlined = payloads(events, "outlining_end")[0]
    assert outlined.sources_selected == 3  # S404 was never fetched
    writing = payloads(events, "writing_start")[0]
    assert writing.attempt == 1 and not writing.is_revision and writing.max_attempts == 1
    assert not writing.HasField("previous_score")

    run = (await case.harness.runs.GetRun(run_service_pb2.GetRunRequest(name=events[0].run))).run
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED


async def test_the_complete_event_carries_the_report_and_the_full_metadata(
    research_case: ResearchCaseFactory,
) -> None:
    case = await research_case("research_balanced.yaml")
    events = await case.research(QUERY)
    done = complete(events)
    meta = done.metadata
    assert meta.mode == re_pb.RESEARCH_MODE_BALANCED and meta.prompt == QUERY
    assert [list(b.queries) for b in meta.executed_queries] == [
        ["varroa mite colony losses", "colony collapse disorder causes"],
        ["neonicotinoid pesticides bees", "nosema parasite"],
    ]
    assert meta.research_objective and meta.research_plan and len(meta.research_questions) == 2
    assert meta.total_pages_analyzed == sum(
        e.analyzed for e in payloads(events, "analyzing_end")
    ) + sum(e.followed for e in payloads(events, "following_end"))
    assert len(meta.gap_evaluations) == 2 and not meta.judgments
    assert meta.gap_evaluations[0].should_continue_research
    assert list(meta.gap_evaluations[0].search_queries) == list(
        payloads(events, "iteration_start")[1].queries
    )
    assert meta.outline.direct_answer and len(meta.outline.key_takeaways) == 2
    assert "S404" not in meta.outline.relevant_source_ids

    cited = meta.cited_pages
    urls = [p.url for p in cited]
    web = case.web.url
    assert urls[0] == f"{web}/varroa.html"  # ordered by first citation
    assert f"{web}/reports/varroa-survey.pdf" in urls
    fetched = {f"{web}{path}" for path in case.web.traffic.paths()}
    assert set(urls) <= fetched  # every cited page was fetched by this run
    first = cited[0]
    assert first.claims and "deformed wing virus" in first.claims[0] and "[" not in first.claims[0]
    assert "varroa mite colony losses" in first.source_queries
    assert first.relevance == re_pb.LEVEL_HIGH and first.summary and first.title
    assert first.url_source == re_pb.URL_SOURCE_SEARCH_RESULT and not first.HasField("full_text")
    survey = next(p for p in cited if p.url.endswith(".pdf"))
    assert survey.depth == 1 and survey.parent_url == f"{web}/varroa.html"
    assert survey.url_source == re_pb.URL_SOURCE_EXTRACTED_LINK

    assert f"[{first.id}]" in done.report and "## Sources" in done.report
    assert "](http" not in done.report.split("## Sources")[0]  # links became id citations
    assert meta.url_sources.search_results > 0 and meta.url_sources.extracted_links == 1
    assert meta.url_sources.user_provided == 0

    check_metrics(meta.metrics)
    assert "coverage is Solid" in done.message
    check_grounding(done)


def check_grounding(done: re_pb.ResearchComplete) -> None:
    """Each grounded segment is a real span of the report, supported by cited pages."""
    report = done.report.encode()
    supports = done.metadata.grounding_supports
    assert supports
    for support in supports:
        assert report[support.start_index : support.end_index].decode() == support.text
        assert all(0 <= i < len(done.metadata.cited_pages) for i in support.cited_page_indices)
    assert list(done.metadata.removed_citations) == []
    assert list(done.metadata.removed_statements) == []  # a correct report comes through whole


def check_planning(events: list[run_event_pb2.RunEvent]) -> None:
    plan = payloads(events, "planning_end")[0]
    assert plan.complexity == re_pb.QUERY_COMPLEXITY_MODERATE
    assert list(plan.queries) == ["varroa mite colony losses", "colony collapse disorder causes"]
    assert len(plan.questions) == 2 and plan.objective and plan.plan
    assert payloads(events, "planning_start")[0].has_prefetched_context is False


def check_iterations(events: list[run_event_pb2.RunEvent], web: str) -> None:
    starts = payloads(events, "iteration_start")
    assert [s.iteration for s in starts] == [1, 2]
    assert {s.max_iterations for s in starts} == {3}
    assert list(starts[1].queries) == ["neonicotinoid pesticides bees", "nosema parasite"]
    searched = payloads(events, "searching_end")
    assert searched[0].urls_found >= searched[0].urls_new > 0

    analysed = payloads(events, "analyzing_end")[0]
    assert analysed.analyzed > 0 and analysed.samples
    sample = analysed.samples[0]
    assert sample.url.startswith(web) and sample.domain == "127.0.0.1" and sample.title
    assert sample.url_source == re_pb.URL_SOURCE_SEARCH_RESULT
    assert sample.HasField("relevance") and sample.HasField("reliability") and sample.summary

    follow_start, follow_end = (
        payloads(events, "following_start"),
        payloads(events, "following_end"),
    )
    assert follow_start[0].link_count == 1 and follow_end[0].followed == 1
    pdf = follow_end[0].samples[0]
    assert pdf.url == f"{web}/reports/varroa-survey.pdf"
    assert pdf.url_source == re_pb.URL_SOURCE_EXTRACTED_LINK

    check_evaluations(events)


def check_evaluations(events: list[run_event_pb2.RunEvent]) -> None:
    evaluations = payloads(events, "evaluating_end")
    assert [e.should_continue for e in evaluations] == [True, False]
    assert evaluations[0].coverage == re_pb.RESEARCH_COVERAGE_MODERATE
    assert evaluations[1].coverage == re_pb.RESEARCH_COVERAGE_SOLID
    statuses = [a.status for a in evaluations[0].question_assessments]
    assert statuses == [re_pb.QUESTION_STATUS_ANSWERED, re_pb.QUESTION_STATUS_UNANSWERED]
    assert payloads(events, "evaluating_start")[0].question_count == 2

    ends = payloads(events, "iteration_end")
    assert [e.is_last for e in ends] == [False, True]
    assert not ends[0].HasField("stop_reason")
    assert ends[1].stop_reason == re_pb.STOP_REASON_COVERAGE_SUFFICIENT


def check_metrics(metrics: re_pb.ResearchMetrics) -> None:
    assert metrics.iterations == 2 and metrics.searches == {"corpus": 4}
    assert metrics.fetches > 0 and metrics.cached_fetches == 0 and not metrics.cached_searches
    expected_phases = {"planning", "searching", "analyzing", "following", "evaluating"}
    assert expected_phases | {"outlining", "writing"} == set(metrics.phases)
    assert all(p.duration >= 0 for p in metrics.phases.values()) and metrics.total_duration > 0
    usage = metrics.tokens["scripted:research-balanced"]
    assert (usage.input, usage.output) == (21200, 2760)
    assert metrics.success_rates.searches == 1.0 and 0 < metrics.success_rates.fetches <= 1
