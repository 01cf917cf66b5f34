"""RunOptions.recipes on both edges: the REST body's "recipes" text, and bad values refused
with a field violation (HTTP 400 with a JSON body; INVALID_ARGUMENT on gRPC)."""

from __future__ import annotations

import httpx
import pytest

from outrider.server.core import validation
from outrider.server.core.errors import InvalidArgument
from outrider.server.rest_edge import bodies, sse
from outrider.v1 import params_pb2, run_event_pb2
from tests.rest.conftest import RestFactory


def test_the_rest_body_names_the_mode() -> None:
    for text, mode in (
        ("replay", params_pb2.RECIPE_MODE_REPLAY),
        ("record", params_pb2.RECIPE_MODE_RECORD),
        ("off", params_pb2.RECIPE_MODE_OFF),
    ):
        spec = bodies.automate_spec({"task": "t", "options": {"recipes": text}})
        assert spec.options.recipes == mode
    assert bodies.automate_spec({"task": "t"}).options.recipes == 0  # unset: off


def test_an_unknown_mode_number_is_a_field_violation() -> None:
    with pytest.raises(InvalidArgument) as caught:
        validation.check_options(params_pb2.RunOptions(recipes=9), "options.")  # type: ignore[arg-type]
    assert [v.field for v in caught.value.violations] == ["options.recipes"]


async def test_an_unknown_mode_text_is_a_400(make_rest: RestFactory) -> None:
    case = await make_rest()
    async with httpx.AsyncClient(base_url=case.origin, timeout=10) as http:
        refused = await http.post(
            "/v1/automate", json={"task": "t", "options": {"recipes": "sometimes"}}
        )
    assert refused.status_code == 400
    fields = {v["field"] for v in refused.json()["error"]["fieldViolations"]}
    assert fields == {"options.recipes"}, fields


def test_recipe_replayed_is_one_of_our_own_sse_events() -> None:
    event = run_event_pb2.RunEvent(
        run="runs/x",
        sequence=3,
        recipe_replayed=run_event_pb2.RecipeReplayed(
            recipe_id="r", steps_total=4, steps_replayed=1, handed_over=True, divergence="d"
        ),
    )
    assert sse.event_block(event, 3000) == (
        b"id: 3\nevent: recipe_replayed\nretry: 3000\n"
        b'data: {"recipeId":"r","stepsTotal":4,"stepsReplayed":1,"handedOver":true,'
        b'"divergence":"d","retired":false}\n\n'
    )
    assert "recipe_replayed" not in sse.TABSTACK_ARMS  # sent only to callers who opted in
