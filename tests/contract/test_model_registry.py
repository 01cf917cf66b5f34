"""Model specs resolve to models, or refuse with a message that says how to configure one."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from outrider.server.core.errors import FailedPrecondition
from outrider.server.models.registry import RunModels, resolve_model
from outrider.server.models.scripted import ScriptedModel
from outrider.v1 import params_pb2, run_service_pb2
from tests.contract.test_models import SCENARIO
from tests.support.harness import Harness, rich_error


def test_scripted_spec_loads_the_scenario() -> None:
    model = resolve_model(f"scripted:{SCENARIO}")
    assert isinstance(model, ScriptedModel) and model.name == "scripted:shop-prices"


@pytest.mark.parametrize(
    ("spec", "reason", "text"),
    [
        ("", "MODEL_NOT_CONFIGURED", "OUTRIDER_MODEL"),
        ("scripted:/nope.yaml", "MODEL_NOT_CONFIGURED", "does not exist"),
        ("martian:gpt", "MODEL_UNAVAILABLE", "martian"),
    ],
)
def test_unusable_specs_are_refused_clearly(spec: str, reason: str, text: str) -> None:
    with pytest.raises(FailedPrecondition, match=text) as caught:
        resolve_model(spec)
    assert caught.value.reason == reason


def test_roles_share_one_instance_per_spec() -> None:
    models = RunModels(f"scripted:{SCENARIO}", {}, "")
    assert models.for_role("actor") is models.for_role("validator")
    override = RunModels("", {"writer": f"scripted:{SCENARIO}"}, "")
    override.for_role("writer")
    with pytest.raises(FailedPrecondition):
        override.check(("writer", "judge"))


async def test_preflight_refusal_reaches_the_caller(harness: Harness, tmp_path: Path) -> None:
    request = run_service_pb2.CreateRunRequest(
        automate=params_pb2.AutomateParams(task="t"),
        options=params_pb2.RunOptions(model=f"scripted:{tmp_path / 'missing.yaml'}"),
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await harness.runs.CreateRun(request)
    error = rich_error(caught.value)
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION
    assert error.reason == "MODEL_NOT_CONFIGURED"
