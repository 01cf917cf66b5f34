"""The scripted model's demo features: branches picked by the first request, turns taken only
`when` texts show, and {{source: ...}} citations resolved against the fenced pages."""

from __future__ import annotations

import pytest

from outrider.server.demo import SCENARIO
from outrider.server.models.base import Message, ModelError, ModelRequest
from outrider.server.models.scripted import ScriptedModel

BRANCHES = {
    "branches": [
        {"name": "prices", "match": ["Red Mug"], "turns": [{"reply": {"text": "mug"}}]},
        {"name": "login", "match": ["Log in"], "turns": [{"reply": {"text": "login"}}]},
    ]
}


def ask(role: str, text: str) -> ModelRequest:
    return ModelRequest(messages=(Message("user", text),), role=role)


async def test_the_first_request_picks_the_branch() -> None:
    model = ScriptedModel.from_dict(BRANCHES)
    assert (await model.generate(ask("planner", "Task: Log in please"))).text == "login"
    with pytest.raises(ModelError, match="no scripted turn left"):
        await model.generate(ask("actor", "Red Mug"))  # the branch stays chosen


async def test_no_matching_branch_names_the_known_tasks() -> None:
    model = ScriptedModel.from_dict(BRANCHES)
    with pytest.raises(ModelError, match=r"knows only these tasks: 'prices'; 'login'"):
        await model.generate(ask("planner", "Task: book a flight"))


async def test_when_skips_a_turn_until_its_texts_show() -> None:
    turns = [
        {"role": "actor", "when": ["approved"], "reply": {"text": "go on"}},
        {"role": "actor", "when": "rejected", "reply": {"text": "stop"}},
    ]
    model = ScriptedModel.from_dict({"turns": turns})
    assert (await model.generate(ask("actor", "The user rejected this"))).text == "stop"
    with pytest.raises(ModelError, match="no scripted turn left"):
        await model.generate(ask("actor", "nothing relevant"))
    assert (await model.generate(ask("actor", "approved"))).text == "go on"


async def test_source_placeholders_become_the_fenced_pages_ids() -> None:
    writer = {
        "role": "writer",
        "reply": {"text": "Heat [{{source: green}}], air [{{source: bl}}]."},
    }
    model = ScriptedModel.from_dict({"turns": [writer, writer]})
    pages = (
        '<external_content id="S1" url="http://x/black-tea.html" title="B">\n...\n'
        '<external_content id="S2" url="http://x/green-tea.html" title="G">\n...'
    )
    assert (await model.generate(ask("writer", pages))).text == "Heat [S2], air [S1]."
    with pytest.raises(ModelError, match="no source whose URL has 'green'"):
        await model.generate(ask("writer", "no pages"))


def test_the_demo_scenario_parses_with_its_three_branches() -> None:
    model = ScriptedModel.from_file(SCENARIO)
    assert model.name == "scripted:demo" and model.remaining == 0  # turns come from a branch
