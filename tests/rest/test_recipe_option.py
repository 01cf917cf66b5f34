"""RunOptions.recipes on both edges: the REST body's "recipes" text, and bad values refused
with a field violation (HTTP 400 with a JSON body; INVALID_ARGUMENT on gRPC)."""

from __future__ import annotations

import httpx
import pytest

from outrider.server.core import validation
from outrider.server.core.errors import InvalidArgument
from outrider.server.rest_edge import bodies
from outrider.v1 import params_pb2
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
