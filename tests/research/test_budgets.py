"""Modes are hard budgets: a run that always wants more stops at its mode's limits, and one that
runs out of tokens or time still writes a report and says why it stopped."""

from __future__ import annotations

import pytest

from outrider.server.research.modes import MODES
from outrider.v1 import research_events_pb2 as re_pb
from tests.research import scenarios
from tests.research.conftest import ResearchCaseFactory
from tests.research.events import complete, payloads, research_names
from tests.research.web import SearchBehaviour


@pytest.mark.parametrize("mode", list(MODES), ids=[m.name for m in MODES.values()])
async def test_each_mode_budget_holds(research_case: ResearchCaseFactory, mode: int) -> None:
    budget = MODES[mode]
    case = await research_case(scenarios.endless(budget, "$WEB"))
    events = await case.research("Tell me everything about honey bees.", mode)
    meta = complete(events).metadata
    metrics = meta.metrics
    assert metrics.iterations == budget.iterations
    batches = [list(b.queries) for b in meta.executed_queries]
    assert all(len(b) <= budget.queries_per_iteration for b in batches)
    assert sum(map(len, batches)) == sum(metrics.searches.values()) <= budget.searches
    assert metrics.fetches <= budget.fetches
    assert sum(t.input + t.output for t in metrics.tokens.values()) <= budget.tokens
    for started in payloads(events, "analyzing_start"):
        assert started.page_count <= budget.pages_per_iteration
    for started in payloads(events, "following_start"):
        assert started.link_count <= budget.follows_per_iteration
    assert len(payloads(events, "judging_end")) == (budget.max_attempts if budget.judge else 0)
    assert {w.max_attempts for w in payloads(events, "writing_start")} == {budget.max_attempts}
    last = payloads(events, "iteration_end")[-1]
    assert last.is_last and last.stop_reason == re_pb.STOP_REASON_MAX_ITERATIONS
    assert "limit" in last.message or "budget" in last.message
    assert ("following:start" in research_names(events)) == (budget.follows_per_iteration > 0)
    assert ("evaluating:start" in research_names(events)) == budget.analyse


async def test_a_run_out_of_tokens_still_publishes_a_report_and_says_why(
    research_case: ResearchCaseFactory,
) -> None:
    script = {"turns": [scenarios.plan(usage=200_000), scenarios.outline(usage=60_000)]}
    case = await research_case(script)
    events = await case.research("Why do colonies die?", re_pb.RESEARCH_MODE_BALANCED)
    names = research_names(events)
    assert "evaluating:start" not in names and names[-1] == "complete"
    last = payloads(events, "iteration_end")[-1]
    assert last.stop_reason == re_pb.STOP_REASON_MAX_ITERATIONS and "token budget" in last.message
    done = complete(events)
    assert "token budget" in done.message and "without the writer" in done.message
    assert done.metadata.cited_pages and "[S1]" in done.report
    assert payloads(events, "analyzing_end")[0].failed > 0  # no tokens left to analyse


async def test_a_run_out_of_time_still_publishes_a_report_and_says_why(
    research_case: ResearchCaseFactory, search_behaviour: SearchBehaviour
) -> None:
    search_behaviour.results = lambda query: [
        {"url": f"{case.web.url}/slow/varroa.html?s=8", "title": "Slow", "snippet": "Slow."}
    ]
    writer = scenarios.turn("writer", text="Nothing could be read in time.")
    script = {"turns": [scenarios.plan(), scenarios.outline(), writer]}
    # Long enough that a loaded machine still reaches the writer within the kept quarter.
    case = await research_case(script, providers=("searxng",), wall_time_cap=3.0)
    events = await case.research("Why do colonies die?", re_pb.RESEARCH_MODE_BALANCED)
    last = payloads(events, "iteration_end")[-1]
    assert last.iteration == 1 and "wall-time budget" in last.message
    assert payloads(events, "analyzing_end")[0].failed == 1
    done = complete(events)
    assert "wall-time budget" in done.message and done.report.startswith("Nothing could be read")
