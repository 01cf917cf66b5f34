"""Research requests refused at creation: too long a query, a model that cannot be resolved."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from outrider.v1 import params_pb2, run_service_pb2
from outrider.v1 import research_events_pb2 as re_pb
from tests.conftest import HarnessFactory
from tests.research.conftest import ResearchCaseFactory
from tests.support.harness import rich_error
from tests.support.requests import collect


def research(query: str, model: str = "") -> run_service_pb2.ResearchRequest:
    return run_service_pb2.ResearchRequest(
        params=params_pb2.ResearchParams(query=query),
        options=params_pb2.RunOptions(model=model),
    )


async def test_a_query_over_ten_thousand_characters_is_invalid(
    research_case: ResearchCaseFactory,
) -> None:
    case = await research_case("research_fast.yaml")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await collect(case.harness.runs.Research(research("bees " * 2001)))
    error = rich_error(caught.value)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "params.query" in error.violations and "10,000" in error.violations["params.query"]


async def test_a_run_whose_models_cannot_be_resolved_is_refused_at_creation(
    make_harness: HarnessFactory, tmp_path: Path
) -> None:
    harness = await make_harness(production=True)  # no model configured at all
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await collect(harness.runs.Research(research("Why do bees dance?")))
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert rich_error(caught.value).reason == "MODEL_NOT_CONFIGURED"

    scenario = tmp_path / "planner.yaml"
    scenario.write_text("turns: []\n")
    judge_missing = await make_harness(
        production=True,
        model=f"scripted:{scenario}",
        role_models={"judge": f"scripted:{tmp_path / 'missing.yaml'}"},
    )
    deep = research("Why do bees dance?")
    deep.params.mode = re_pb.RESEARCH_MODE_DEEP  # deep mode calls the judge
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await collect(judge_missing.runs.Research(deep))
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "missing.yaml" in caught.value.details()
    fast = run_service_pb2.CreateRunRequest(research=research("Why do bees dance?").params)
    created = await judge_missing.runs.CreateRun(fast)  # fast mode has no judge: it may start
    assert created.run.name.startswith("runs/")
