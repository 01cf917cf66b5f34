"""The research iterations: search, read and analyse, follow links, evaluate, decide."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import cast

from outrider.server.core.events.names import by_wire_value
from outrider.server.research import prompts
from outrider.server.research.budget import BudgetExhausted
from outrider.server.research.events import samples
from outrider.server.research.llm import ModelFailed
from outrider.server.research.reading import analyse, read
from outrider.server.research.run import PhaseFailed, ResearchRun
from outrider.server.research.schemas import EvaluationOut
from outrider.server.research.searching import search
from outrider.server.research.state import (
    ANALYSE,
    EVALUATE,
    FOLLOW,
    ITERATE,
    OUTLINE,
    READ,
    SEARCH,
    Candidate,
    Progress,
    Source,
)
from outrider.server.telemetry.steps import step
from outrider.v1 import research_events_pb2 as re

MAX_NEW_QUESTIONS = 3
_COVERAGE = cast("dict[str, re.ResearchCoverage]", by_wire_value(re.ResearchCoverage.DESCRIPTOR))
_STATUS = cast("dict[str, re.QuestionStatus]", by_wire_value(re.QuestionStatus.DESCRIPTOR))


@dataclass(frozen=True)
class Stop:
    reason: int  # re.StopReason
    note: str


async def iterate(run: ResearchRun, save: Callable[[], None]) -> None:
    """Runs iterations, from where the run's progress says, until coverage suffices or a budget
    or the iteration limit stops them; `save` checkpoints the run after each step."""
    progress = run.state.progress
    while progress.stage == ITERATE:
        attributes = {"outrider.iteration": progress.iteration}
        with step("research", "iteration", "research.iteration", attributes):
            await _one_iteration(run, save)


async def _one_iteration(run: ResearchRun, save: Callable[[], None]) -> None:
    """The iteration's remaining steps: search, read, analyse, follow links, evaluate."""
    progress = run.state.progress
    iteration = progress.iteration
    while progress.stage == ITERATE and progress.iteration == iteration:
        await _STEPS[progress.step](run, progress)
        progress.resumed = False
        save()


async def _search_step(run: ResearchRun, progress: Progress) -> None:
    iteration = progress.iteration
    run.state.iterations = iteration
    limit = min(run.budget.mode.queries_per_iteration, run.budget.searches_left())
    progress.queries = progress.queries[:limit]
    run.emit(
        "iteration_start",
        re.IterationStart(
            iteration=iteration,
            max_iterations=run.budget.mode.iterations,
            message=f"Iteration {iteration}",
            queries=progress.queries,
        ),
    )
    await search(run, iteration, progress.queries)
    progress.step = READ


async def _read_step(run: ResearchRun, progress: Progress) -> None:
    """Opens the analysing phase and fetches its pages; the batch to analyse is the pages read
    and the sources carried in (the query's own pages, in the first iteration)."""
    state = run.state
    take = min(run.budget.mode.pages_per_iteration, run.budget.fetches_left())
    candidates, state.pending = state.pending[:take], state.pending[take:]
    unanalysed = state.sources_of(progress.batch)
    _analyzing_start(run, progress.iteration, len(candidates) + len(unanalysed))
    with run.metrics.phase("analyzing"):
        known = state.duplicates
        sources = unanalysed + await read(run, candidates, progress.iteration)
    progress.copies = state.duplicates - known
    progress.read_failed = len(candidates) + len(unanalysed) - len(sources) - progress.copies
    progress.batch = [s.id for s in sources]
    progress.step = ANALYSE


async def _analyse_step(run: ResearchRun, progress: Progress) -> None:
    """Closes the analysing phase: the analyser's verdicts on the batch read."""
    iteration = progress.iteration
    sources = run.state.sources_of(progress.batch)
    if progress.resumed:  # the phase was interrupted after its reading: it starts again here
        _analyzing_start(run, iteration, len(sources))
    failed = progress.read_failed
    if run.budget.mode.analyse:
        with run.metrics.phase("analyzing"):
            failed += await analyse(run, sources, run.budget.mode.follows_per_iteration > 0)
    done = [s for s in sources if s.analysis is not None or not run.budget.mode.analyse]
    run.emit(
        "analyzing_end",
        re.AnalyzingEnd(
            analyzed=len(done),
            failed=failed,
            iteration=iteration,
            message=f"Analysed {len(done)} pages, {failed} failed" + _copies(progress.copies),
            samples=samples(done),
        ),
    )
    progress.batch = [s.id for s in done]
    progress.step = FOLLOW


def _analyzing_start(run: ResearchRun, iteration: int, pages: int) -> None:
    run.emit(
        "analyzing_start",
        re.AnalyzingStart(iteration=iteration, message=f"Reading {pages} pages", page_count=pages),
    )


async def _follow_step(run: ResearchRun, progress: Progress) -> None:
    """Follows links of the pages just analysed: fetches, not searches, so it runs while they
    last."""
    if run.budget.mode.follows_per_iteration and run.budget.follow_stop() is None:
        await _follow_phase(run, progress.iteration, run.state.sources_of(progress.batch))
    progress.batch = []
    progress.step = EVALUATE


async def _evaluate_step(run: ResearchRun, progress: Progress) -> None:
    """Evaluates coverage and ends the iteration: the next one, or the end of researching."""
    iteration = progress.iteration
    if run.budget.mode.analyse:
        stop, queries = await _evaluate_phase(run, iteration)
    else:
        stop = _limit_stop(run, iteration) or Stop(re.STOP_REASON_MAX_ITERATIONS, "fast mode")
        queries = []
    _end_iteration(run, iteration, stop)
    progress.batch, progress.read_failed, progress.copies = [], 0, 0
    if stop is not None:
        progress.stage = OUTLINE
        return
    progress.iteration, progress.step, progress.queries = iteration + 1, SEARCH, queries


_STEPS: dict[str, Callable[[ResearchRun, Progress], Awaitable[None]]] = {
    SEARCH: _search_step,
    READ: _read_step,
    ANALYSE: _analyse_step,
    FOLLOW: _follow_step,
    EVALUATE: _evaluate_step,
}


def _end_iteration(run: ResearchRun, iteration: int, stop: Stop | None) -> None:
    end = re.IterationEnd(is_last=stop is not None, iteration=iteration)
    if stop is None:
        end.message = f"Iteration {iteration} done; continuing"
    else:
        end.stop_reason = stop.reason  # type: ignore[assignment]
        end.message = f"Research stopped after iteration {iteration}: {stop.note}"
        run.state.stop_note = stop.note
    run.emit("iteration_end", end)


async def _follow_phase(run: ResearchRun, iteration: int, fresh: list[Source]) -> None:
    links = _links_to_follow(run, fresh)
    run.emit(
        "following_start",
        re.FollowingStart(
            iteration=iteration, link_count=len(links), message=f"Following {len(links)} links"
        ),
    )
    with run.metrics.phase("following"):
        known = run.state.duplicates
        sources = await read(run, links, iteration)
        copies = run.state.duplicates - known
        failed = len(links) - len(sources) - copies
        if sources:
            failed += await analyse(run, sources, with_links=False)
    done = [s for s in sources if s.analysis is not None]
    run.emit(
        "following_end",
        re.FollowingEnd(
            failed=failed,
            followed=len(done),
            iteration=iteration,
            message=f"Followed {len(done)} links, {failed} failed" + _copies(copies),
            samples=samples(done),
        ),
    )


def _copies(count: int) -> str:
    return f", {count} dropped as copies of pages already read" if count else ""


def _links_to_follow(run: ResearchRun, fresh: list[Source]) -> list[Candidate]:
    limit = min(run.budget.mode.follows_per_iteration, run.budget.fetches_left())
    ranked = sorted(
        (s for s in fresh if s.analysis is not None and s.analysis.quality),
        key=lambda s: -(s.analysis.relevance if s.analysis else 0),
    )
    state = run.state
    links: list[Candidate] = []
    for parent in ranked:
        for url in parent.analysis.follow if parent.analysis else []:
            if url not in state.attempted and len(links) < limit:
                state.attempted.add(url)  # a search may have queued it too: fetch it once
                state.seen_urls.add(url)
                depth = (parent.candidate.depth or 0) + 1
                links.append(Candidate(url, re.URL_SOURCE_EXTRACTED_LINK, "", parent.url, depth))
    state.pending = [c for c in state.pending if c.url not in state.attempted]
    return links


async def _evaluate_phase(run: ResearchRun, iteration: int) -> tuple[Stop | None, list[str]]:
    state = run.state
    if (exhausted := run.budget.model_stop()) is not None:
        return Stop(re.STOP_REASON_MAX_ITERATIONS, exhausted), []
    run.emit(
        "evaluating_start",
        re.EvaluatingStart(
            iteration=iteration,
            message="Evaluating coverage",
            pages_analyzed=len(state.analysed()),
            question_count=len(state.questions),
        ),
    )
    with run.metrics.phase("evaluating"):
        try:
            out = await run.llm.structured(
                "planner",
                "evaluator",
                prompts.EVALUATOR,
                prompts.evaluate_request(state, iteration),
                EvaluationOut,
            )
        except BudgetExhausted as error:
            _evaluation_cut_short(run, iteration, str(error))
            return Stop(re.STOP_REASON_MAX_ITERATIONS, str(error)), []
        except ModelFailed as error:
            raise PhaseFailed(
                re.RESEARCH_ACTIVITY_EVALUATING, "EVALUATION_FAILED", str(error), iteration
            ) from None
    return _record_evaluation(run, iteration, out)


def _evaluation_cut_short(run: ResearchRun, iteration: int, why: str) -> None:
    """Closes the phase when a budget ran out during the call: no verdict, no continuing."""
    earlier = run.state.gap_evaluations
    run.emit(
        "evaluating_end",
        re.EvaluatingEnd(
            coverage=earlier[-1].research_coverage if earlier else re.RESEARCH_COVERAGE_LIGHT,
            iteration=iteration,
            message=f"Evaluation cut short: {why}",
            should_continue=False,
        ),
    )


def _record_evaluation(
    run: ResearchRun, iteration: int, out: EvaluationOut
) -> tuple[Stop | None, list[str]]:
    state = run.state
    added = sum(len(g.new_research_questions) for g in state.gap_evaluations)
    new_questions = [q for q in out.new_questions if q not in state.questions]
    new_questions = new_questions[: max(0, MAX_NEW_QUESTIONS - added)]
    state.questions.extend(new_questions)
    queries = _next_queries(run, out)
    stop = _decide(run, iteration, out, queries)
    assessments = [
        re.QuestionAssessment(findings=a.findings, question=a.question, status=_STATUS[a.status])
        for a in out.question_assessments
    ]
    coverage = _COVERAGE[out.coverage]
    state.gap_evaluations.append(
        re.GapEvaluation(
            gap_description=out.gaps,
            question_assessments=assessments,
            research_coverage=coverage,
            should_continue_research=stop is None,
            new_research_questions=new_questions,
            search_queries=queries if stop is None else [],
        )
    )
    run.emit(
        "evaluating_end",
        re.EvaluatingEnd(
            coverage=coverage,
            gaps=out.gaps,
            iteration=iteration,
            message=f"Coverage {out.coverage}; " + ("continuing" if stop is None else "stopping"),
            next_queries=queries if stop is None else [],
            question_assessments=assessments,
            should_continue=stop is None,
        ),
    )
    return stop, queries


def _next_queries(run: ResearchRun, out: EvaluationOut) -> list[str]:
    done = {q for batch in run.state.executed_queries for q in batch}
    queries = [q.strip() for q in out.next_queries if q.strip() and q.strip() not in done]
    if not queries:  # the model wants more but named nothing new: ask the open questions
        open_questions = [a.question for a in out.question_assessments if a.status != "answered"]
        queries = [q for q in open_questions if q not in done]
    return list(dict.fromkeys(queries))


def _decide(
    run: ResearchRun, iteration: int, out: EvaluationOut, queries: list[str]
) -> Stop | None:
    if (limit := _limit_stop(run, iteration)) is not None:
        return limit
    if not out.should_continue:
        return Stop(re.STOP_REASON_COVERAGE_SUFFICIENT, f"coverage is {out.coverage}")
    if not queries:
        return Stop(re.STOP_REASON_COVERAGE_SUFFICIENT, "no new queries to run")
    return None


def _limit_stop(run: ResearchRun, iteration: int) -> Stop | None:
    if iteration >= run.budget.mode.iterations:
        return Stop(
            re.STOP_REASON_MAX_ITERATIONS,
            f"the iteration limit ({run.budget.mode.iterations}) was reached",
        )
    if (budget := run.budget.research_stop()) is not None:
        return Stop(re.STOP_REASON_MAX_ITERATIONS, budget)
    return None
