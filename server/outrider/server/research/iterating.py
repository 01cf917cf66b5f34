"""The research iterations: search, read and analyse, follow links, evaluate, decide."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from outrider.server.core.event_names import by_wire_value
from outrider.server.research import prompts
from outrider.server.research.budget import BudgetExhausted
from outrider.server.research.events import samples
from outrider.server.research.llm import ModelFailed
from outrider.server.research.reading import analyse, read
from outrider.server.research.run import PhaseFailed, ResearchRun
from outrider.server.research.schemas import EvaluationOut
from outrider.server.research.searching import search
from outrider.server.research.state import Candidate, Source
from outrider.server.telemetry.steps import step
from outrider.v1 import research_events_pb2 as re

MAX_NEW_QUESTIONS = 3
_COVERAGE = cast("dict[str, re.ResearchCoverage]", by_wire_value(re.ResearchCoverage.DESCRIPTOR))
_STATUS = cast("dict[str, re.QuestionStatus]", by_wire_value(re.QuestionStatus.DESCRIPTOR))


@dataclass(frozen=True)
class Stop:
    reason: int  # re.StopReason
    note: str


async def iterate(run: ResearchRun, prefetched: list[Source]) -> None:
    """Runs iterations until coverage suffices or a budget or the iteration limit stops them."""
    queries = run.state.initial_queries
    unanalysed = list(prefetched)
    iteration = 0
    while True:
        iteration += 1
        run.state.iterations = iteration
        queries = queries[: min(run.budget.mode.queries_per_iteration, run.budget.searches_left())]
        run.emit(
            "iteration_start",
            re.IterationStart(
                iteration=iteration,
                max_iterations=run.budget.mode.iterations,
                message=f"Iteration {iteration}",
                queries=queries,
            ),
        )
        with step("research", "iteration", "research.iteration", {"outrider.iteration": iteration}):
            stop, queries = await _one_iteration(run, iteration, queries, unanalysed)
        unanalysed = []
        _end_iteration(run, iteration, stop)
        if stop is not None:
            return


async def _one_iteration(
    run: ResearchRun, iteration: int, queries: list[str], unanalysed: list[Source]
) -> tuple[Stop | None, list[str]]:
    await search(run, iteration, queries)
    fresh = await _analyse_phase(run, iteration, unanalysed)
    if run.budget.mode.follows_per_iteration and run.budget.follow_stop() is None:
        await _follow_phase(run, iteration, fresh)  # fetches, not searches: it runs while they last
    if not run.budget.mode.analyse:
        return _limit_stop(run, iteration) or Stop(re.STOP_REASON_MAX_ITERATIONS, "fast mode"), []
    return await _evaluate_phase(run, iteration)


def _end_iteration(run: ResearchRun, iteration: int, stop: Stop | None) -> None:
    end = re.IterationEnd(is_last=stop is not None, iteration=iteration)
    if stop is None:
        end.message = f"Iteration {iteration} done; continuing"
    else:
        end.stop_reason = stop.reason  # type: ignore[assignment]
        end.message = f"Research stopped after iteration {iteration}: {stop.note}"
        run.state.stop_note = stop.note
    run.emit("iteration_end", end)


async def _analyse_phase(
    run: ResearchRun, iteration: int, unanalysed: list[Source]
) -> list[Source]:
    state = run.state
    take = min(run.budget.mode.pages_per_iteration, run.budget.fetches_left())
    candidates, state.pending = state.pending[:take], state.pending[take:]
    run.emit(
        "analyzing_start",
        re.AnalyzingStart(
            iteration=iteration,
            message=f"Reading {len(candidates) + len(unanalysed)} pages",
            page_count=len(candidates) + len(unanalysed),
        ),
    )
    with run.metrics.phase("analyzing"):
        known = state.duplicates
        sources = unanalysed + await read(run, candidates, iteration)
        copies = state.duplicates - known
        failed = len(candidates) + len(unanalysed) - len(sources) - copies
        if run.budget.mode.analyse:
            failed += await analyse(run, sources, run.budget.mode.follows_per_iteration > 0)
    done = [s for s in sources if s.analysis is not None or not run.budget.mode.analyse]
    run.emit(
        "analyzing_end",
        re.AnalyzingEnd(
            analyzed=len(done),
            failed=failed,
            iteration=iteration,
            message=f"Analysed {len(done)} pages, {failed} failed" + _copies(copies),
            samples=samples(done),
        ),
    )
    return done


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
