"""The `complete` event: the published report (checked citations and a sources list) and the
full metadata."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from outrider.server.research.citations import CheckedReport, Support
from outrider.server.research.run import ResearchRun
from outrider.server.research.state import Source
from outrider.server.research.titles import markdown_text, markdown_url
from outrider.server.research.writing import Draft
from outrider.v1 import research_events_pb2 as re


def publish(run: ResearchRun, draft: Draft) -> re.ResearchComplete:
    state = run.state
    report = draft.report
    metadata = re.ResearchMetadata(
        executed_queries=[re.QueryBatch(queries=batch) for batch in state.executed_queries],
        mode=state.mode,  # type: ignore[arg-type]
        prompt=state.query,
        query_complexity=state.complexity,  # type: ignore[arg-type]
        research_objective=state.objective,
        research_plan=state.plan,
        research_questions=state.questions,
        total_pages_analyzed=len(state.analysed()) if state.budget.analyse else len(state.sources),
        cited_pages=[_cited(run, state.sources[i], report) for i in report.cited],
        gap_evaluations=state.gap_evaluations,
        judgments=state.judgments,
        metrics=run.metrics.to_proto(run.search.stats, state.iterations),
        url_sources=_url_sources(state.sources.values()),
        grounding_supports=[_grounding(support) for support in report.supports],
        removed_citations=report.removed,
        removed_statements=report.unsupported,
    )
    if state.outline is not None:
        metadata.outline.CopyFrom(state.outline)
    return re.ResearchComplete(
        message=completion_message(run, draft), metadata=metadata, report=_with_sources(run, report)
    )


def completion_message(run: ResearchRun, draft: Draft) -> str:
    state = run.state
    parts = [
        f"Research complete after {state.iterations} iterations; "
        f"{len(draft.report.cited)} sources cited. Stopped because {state.stop_note}."
    ]
    if draft.fallback_note:
        parts.append(f"The report was written without the writer: {draft.fallback_note}.")
    if draft.report.removed:
        removed = ", ".join(draft.report.removed)
        parts.append(
            f"Removed {len(draft.report.removed)} citations of pages the run did not fetch "
            f"({removed})."
        )
    if draft.report.unsupported:
        parts.append(
            f"Removed {len(draft.report.unsupported)} statements that cite no fetched page or "
            "state a number, date or name the pages they cite do not."
        )
    return " ".join(parts)


def _grounding(support: Support) -> re.GroundingSupport:
    segment = support.segment
    return re.GroundingSupport(
        start_index=segment.start,
        end_index=segment.end,
        text=segment.text,
        cited_page_indices=support.source_indices,
    )


def _cited(run: ResearchRun, source: Source, report: CheckedReport) -> re.CitedPage:
    candidate = source.candidate
    page = re.CitedPage(
        id=source.id,
        claims=report.claims.get(source.id, []),
        source_queries=run.state.url_queries.get(candidate.url, []),
        url=source.url,
        title=source.title,
        url_source=candidate.url_source,  # type: ignore[arg-type]
    )
    if candidate.depth is not None:
        page.depth = candidate.depth
    if candidate.parent_url is not None:
        page.parent_url = candidate.parent_url
    if source.analysis is not None:
        page.relevance = source.analysis.relevance  # type: ignore[assignment]
        page.reliability = source.analysis.reliability  # type: ignore[assignment]
        page.summary = source.analysis.summary
    if run.include_full_text:
        page.full_text = source.page.text
    return page


def _url_sources(sources: Iterable[Source]) -> re.UrlSourceCounts:
    counts = Counter(s.candidate.url_source for s in sources)
    return re.UrlSourceCounts(
        search_results=counts[re.URL_SOURCE_SEARCH_RESULT],
        user_provided=counts[re.URL_SOURCE_USER_INPUT],
        extracted_links=counts[re.URL_SOURCE_EXTRACTED_LINK],
    )


def _with_sources(run: ResearchRun, report: CheckedReport) -> str:
    if not report.cited:
        return report.text
    lines = [report.text.rstrip(), "", "## Sources", ""]
    for source_id in report.cited:
        source = run.state.sources[source_id]
        lines.append(f"- [{source_id}] {markdown_text(source.title)} — {markdown_url(source.url)}")
    return "\n".join(lines)
