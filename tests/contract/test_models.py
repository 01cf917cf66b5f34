"""The scripted model replays scenario files behind the model interface."""

from __future__ import annotations

import pytest

from outrider.server.models.base import Message, ModelError, ModelRequest
from outrider.server.models.scripted import ScriptedModel
from tests.support.harness import REPO_ROOT

SCENARIO = REPO_ROOT / "tests" / "fixtures" / "scenarios" / "shop_prices.yaml"


def ask(role: str, text: str) -> ModelRequest:
    return ModelRequest(messages=(Message("user", text),), role=role)


async def test_replays_turns_by_role_in_order() -> None:
    model = ScriptedModel.from_file(SCENARIO)
    assert model.name == "scripted:shop-prices"
    verdict = await model.generate(ask("validator", "check this"))
    assert verdict.data == {
        "completion_quality": "complete",
        "observation": "The answer matches the page.",
    }
    first = await model.generate(ask("actor", "page: Fixture Shop ..."))
    assert first.tool_calls[0].name == "extract" and first.finish_reason == "tool-calls"
    assert first.usage.total_tokens == 224
    second = await model.generate(ask("actor", "anything"))
    assert second.tool_calls[0].arguments == {"answer": "$8.25"}
    assert model.remaining == 0
    assert [r.role for r in model.requests] == ["validator", "actor", "actor"]
    with pytest.raises(ModelError, match="no scripted turn left"):
        await model.generate(ask("actor", "more"))


async def test_missing_expected_text_names_the_turn() -> None:
    model = ScriptedModel.from_file(SCENARIO)
    with pytest.raises(ModelError, match=r"turn 0.*Fixture Shop"):
        await model.generate(ask("actor", "a different page"))


async def test_error_turns_fail_the_call() -> None:
    model = ScriptedModel.from_dict(
        {"turns": [{"error": "rate limited"}, {"reply": {"text": "ok"}}]}
    )
    with pytest.raises(ModelError, match="rate limited"):
        await model.generate(ask("default", "x"))
    assert (await model.generate(ask("default", "x"))).text == "ok"


def test_a_turn_needs_a_reply_or_an_error() -> None:
    with pytest.raises(ValueError, match="turn 0"):
        ScriptedModel.from_dict({"turns": [{"role": "actor"}]})
