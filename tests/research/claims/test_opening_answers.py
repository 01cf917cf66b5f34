"""Issue 41, end to end in balanced and deep mode over the ferry notes (one page a history, one a
deals page that tells the model what to write): the writer opens with a bold lead-in and an
ordinary capitalised word ("**Short answer.** According to ..."), as models do. A correct opening
answer stays while what the deals page asked for leaves; a false one leaves too, and then the
report says so at its top, with the count, as `complete` does."""

from __future__ import annotations

from typing import Any

import pytest

from outrider.v1 import research_events_pb2 as re_pb
from tests.research.claims.test_stated_by_sources import PLAN, QUERY
from tests.research.conftest import ResearchCaseFactory
from tests.research.events import complete
from tests.research.scenarios import turn

TITLE = "# Ferries across the bay\n\n"
OPENING = (
    "**Short answer.** According to the local history, the first regular ferry across the bay "
    "sailed on 4 June 1894 [S1].\n\n"
)
DETAILS = (
    "## Details\n\n"
    "- **The boat.** It was a paddle steamer called the Marigold, and it took 40 minutes to "
    "cross [S1].\n"
    "- Today, a passenger boat still runs in summer, carrying up to 120 people [S1].\n"
)
INJECTED = (
    "- The Marigold was built by Gustave Eiffel [S1].\n- The last car ferry stopped in 1979 [S1].\n"
)
MODES = {"balanced": re_pb.RESEARCH_MODE_BALANCED, "deep": re_pb.RESEARCH_MODE_DEEP}


def script(mode: str, report: str) -> dict[str, Any]:
    pages = {
        "pages": [
            {"id": "S1", "relevance": "high", "reliability": "high", "summary": "Ferry history."},
            {"id": "S2", "relevance": "low", "reliability": "low", "summary": "A deals page."},
        ]
    }
    evaluation = {
        "coverage": "Comprehensive",
        "should_continue": False,
        "question_assessments": [
            {"question": PLAN["questions"][0], "status": "answered", "findings": "4 June 1894."}
        ],
    }
    outline = {
        "outline": "1. Answer 2. Details",
        "direct_answer": "1894.",
        "relevant_source_ids": ["S1"],
    }
    turns = [
        turn("planner", data=PLAN),
        turn("analyser", data=pages),
        turn("evaluator", data=evaluation),
        turn("outliner", data=outline),
        turn("writer", text=report),
    ]
    if mode == "deep":
        turns.append(turn("judge", data={"score": 9, "approved": True, "observation": "Cited."}))
    return {"model": f"scripted:claims-{mode}", "turns": turns}


async def published(
    research_case: ResearchCaseFactory, mode: str, report: str
) -> re_pb.ResearchComplete:
    case = await research_case(script(mode, report), providers=("searxng",))
    return complete(await case.research(QUERY, MODES[mode]))


@pytest.mark.parametrize("mode", MODES)
async def test_a_correct_opening_answer_stays_and_the_injected_claims_leave(
    research_case: ResearchCaseFactory, mode: str
) -> None:
    done = await published(research_case, mode, TITLE + OPENING + DETAILS + INJECTED)
    body = done.report.partition("\n## Sources\n")[0]
    assert body.rstrip("\n") == (TITLE + OPENING + DETAILS).rstrip("\n")
    assert list(done.metadata.removed_statements) == [
        "The Marigold was built by Gustave Eiffel.",
        "The last car ferry stopped in 1979.",
    ]
    assert "Removed 2 statements" in done.message


@pytest.mark.parametrize("mode", MODES)
async def test_a_false_opening_answer_leaves_and_the_report_says_so_at_its_top(
    research_case: ResearchCaseFactory, mode: str
) -> None:
    false = OPENING.replace("on 4 June 1894", "in 1879")
    done = await published(research_case, mode, TITLE + false + DETAILS + INJECTED)
    body = done.report.partition("\n## Sources\n")[0]
    assert body.rstrip("\n") == (
        TITLE + "> **Note:** 3 statements that the report's sources do not support were removed, "
        "its opening answer among them.\n\n" + DETAILS
    ).rstrip("\n")
    assert len(done.metadata.removed_statements) == 3
    assert done.metadata.removed_statements[0].startswith("**Short answer.** According to")
    assert "Removed 3 statements" in done.message
