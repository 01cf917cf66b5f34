"""Outline, write, judge and revise, within the budgets; the best checked draft is the report."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from outrider.server.research import prompts
from outrider.server.research.budget import BudgetExhausted
from outrider.server.research.citations import CheckedReport, check_citations
from outrider.server.research.llm import ModelFailed
from outrider.server.research.run import PhaseFailed, ResearchRun
from outrider.server.research.schemas import JudgmentOut, OutlineOut
from outrider.server.research.sentences import sentence_spans
from outrider.server.research.state import Source
from outrider.server.research.titles import markdown_text
from outrider.v1 import research_events_pb2 as re

log = logging.getLogger(__name__)
MAX_WRITER_SOURCES = 20
FALLBACK_CHARS = 400


@dataclass
class Draft:
    report: CheckedReport
    judgment: JudgmentOut | None = None
    fallback_note: str = ""  # set when the writer could not run and code wrote the report


async def outline(run: ResearchRun) -> None:
    state = run.state
    run.emit(
        "outlining_start",
        re.OutliningStart(
            message="Outlining the report",
            pages_analyzed=len(state.analysed()),
            quality_page_count=sum(
                1 for s in state.analysed() if s.analysis and s.analysis.quality
            ),
        ),
    )
    with run.metrics.phase("outlining"):
        try:
            out = await run.llm.structured(
                "writer",
                "outliner",
                prompts.OUTLINER,
                prompts.outline_request(state),
                OutlineOut,
                research=False,
            )
        except BudgetExhausted as error:
            log.info("no outline: %s", error)
            out = None
        except ModelFailed as error:
            raise PhaseFailed(
                re.RESEARCH_ACTIVITY_OUTLINING, "OUTLINE_FAILED", str(error)
            ) from None
    ids = [i for i in (out.relevant_source_ids if out else []) if i in state.sources]
    if out is not None:
        state.outline = re.ReportOutline(
            direct_answer=out.direct_answer,
            key_takeaways=out.key_takeaways,
            outline=out.outline,
            relevant_source_ids=ids,
        )
    run.emit(
        "outlining_end",
        re.OutliningEnd(message=f"Outline relies on {len(ids)} sources", sources_selected=len(ids)),
    )


async def write_and_judge(run: ResearchRun) -> Draft:
    """Writing attempts (with judging and revisions when the mode has a judge); the best draft."""
    mode = run.budget.mode
    drafts: list[Draft] = []
    feedback: str | None = None
    for attempt in range(1, mode.max_attempts + 1):
        previous = drafts[-1].judgment if drafts else None
        draft = await _write(run, attempt, previous, feedback)
        drafts.append(draft)
        if not mode.judge or draft.fallback_note or not _room_for_judging(run):
            break
        draft.judgment = await _judge(run, attempt, draft.report)
        if draft.judgment is None or draft.judgment.approved or not _room_for_judging(run):
            break
        feedback = draft.judgment.feedback or draft.judgment.observation
    return _best(drafts)


async def _write(
    run: ResearchRun, attempt: int, previous: JudgmentOut | None, feedback: str | None
) -> Draft:
    start = re.WritingStart(
        attempt=attempt,
        is_revision=attempt > 1,
        max_attempts=run.budget.mode.max_attempts,
        message="Revising the report" if attempt > 1 else "Writing the report",
    )
    if previous is not None:
        start.previous_score = previous.score
    run.emit("writing_start", start)
    with run.metrics.phase("writing"):
        draft = await _draft(run, feedback)
    run.emit("writing_end", re.WritingEnd(attempt=attempt, message=_written(draft)))
    return draft


async def _draft(run: ResearchRun, feedback: str | None) -> Draft:
    sources = writer_sources(run)
    try:
        text = await run.llm.text(
            "writer",
            "writer",
            prompts.WRITER,
            prompts.write_request(run.state, sources, feedback, run.earlier),
        )
    except BudgetExhausted as error:
        note = f"{error}, so the report lists the sources' findings without a writer"
        return Draft(_check(run, fallback_report(run, sources)), fallback_note=note)
    except ModelFailed as error:
        raise PhaseFailed(re.RESEARCH_ACTIVITY_WRITING, "WRITING_FAILED", str(error)) from None
    return Draft(_check(run, text))


def _written(draft: Draft) -> str:
    removed, unsupported = len(draft.report.removed), len(draft.report.unsupported)
    notes = [f"removed {removed} citations of pages the run did not fetch"] if removed else []
    if unsupported:
        notes.append(f"removed {unsupported} statements no cited page supports")
    return f"Report written, citing {len(draft.report.cited)} sources" + "".join(
        f"; {note}" for note in notes
    )


async def _judge(run: ResearchRun, attempt: int, report: CheckedReport) -> JudgmentOut | None:
    """The judge's verdict, or None when a budget ran out during the call."""
    max_attempts = run.budget.mode.max_attempts
    run.emit(
        "judging_start",
        re.JudgingStart(attempt=attempt, max_attempts=max_attempts, message="Judging the report"),
    )
    with run.metrics.phase("judging"):
        try:
            out = await run.llm.structured(
                "judge",
                "judge",
                prompts.JUDGE,
                prompts.judge_request(run.state, report.text, writer_sources(run)),
                JudgmentOut,
                research=False,
            )
        except BudgetExhausted as error:
            message = f"Judging cut short ({error}); the draft stands unjudged"
            run.emit("judging_end", re.JudgingEnd(attempt=attempt, message=message))
            return None
        except ModelFailed as error:
            raise PhaseFailed(re.RESEARCH_ACTIVITY_JUDGING, "JUDGING_FAILED", str(error)) from None
    judgment = re.Judgment(approved=out.approved, observation=out.observation, score=out.score)
    end = re.JudgingEnd(approved=out.approved, attempt=attempt, score=out.score)
    if out.feedback:
        judgment.feedback = end.feedback = out.feedback
    end.message = f"Score {out.score:g}, " + ("approved" if out.approved else "not approved")
    run.state.judgments.append(judgment)
    run.emit("judging_end", end)
    return out


def _room_for_judging(run: ResearchRun) -> bool:
    try:
        run.budget.check_writing()
    except BudgetExhausted:
        return False
    return True


def _best(drafts: list[Draft]) -> Draft:
    """The approved draft, else the best-scored one (the later on a tie)."""
    approved = [d for d in drafts if d.judgment is not None and d.judgment.approved]
    if approved:
        return approved[-1]
    scored = [d for d in drafts if d.judgment is not None]
    if not scored:
        return drafts[-1]
    return max(reversed(scored), key=lambda d: d.judgment.score if d.judgment else 0.0)


def writer_sources(run: ResearchRun) -> list[Source]:
    """The sources the writer sees: the outline's picks first, then the best analysed pages."""
    state = run.state
    picked = [
        state.sources[i] for i in (state.outline.relevant_source_ids if state.outline else [])
    ]
    rest = sorted(
        (s for s in state.sources.values() if s not in picked),
        key=lambda s: -(s.analysis.relevance + s.analysis.reliability if s.analysis else 0),
    )
    return (picked + rest)[:MAX_WRITER_SOURCES]


def fallback_report(run: ResearchRun, sources: list[Source]) -> str:
    """What code can write without a model: each source's summary or opening, each of its
    sentences cited (an uncited statement would be removed)."""
    lines = [f"# {run.state.query.strip()[:200]}", ""]
    for source in sources:
        gist = source.analysis.summary if source.analysis else source.page.text[:FALLBACK_CHARS]
        gist = " ".join(gist.split())
        cited = " ".join(
            f"{gist[start:end].rstrip('.')}. [{source.id}]" for start, end in sentence_spans(gist)
        )
        lines.append(f"- **{markdown_text(source.title)}**: {cited}")
    return "\n".join(lines)


def _check(run: ResearchRun, text: str) -> CheckedReport:
    sources = {s.id: s.url for s in run.state.sources.values()}
    # The titles as headings: a title's capitals name no names (support.py).
    texts = {
        s.id: f"# {s.title}\n# {s.page.title}\n{s.page.text}" for s in run.state.sources.values()
    }
    return check_citations(text, sources, run.state.known_urls(), texts)
