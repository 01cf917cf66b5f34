"""Bad input gets INVALID_ARGUMENT with a field violation naming the field, and stores nothing."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import params_pb2, run_service_pb2
from tests.support.harness import Harness, rich_error


async def invalid(call: Any) -> dict[str, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        result = call
        if hasattr(result, "read"):
            await result.read()
        else:
            await result
    error = rich_error(caught.value)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.reason == "INVALID_ARGUMENT"
    return error.violations


def automate(**params: Any) -> run_service_pb2.AutomateRequest:
    return run_service_pb2.AutomateRequest(params=params_pb2.AutomateParams(**params))


def research(**params: Any) -> run_service_pb2.ResearchRequest:
    return run_service_pb2.ResearchRequest(params=params_pb2.ResearchParams(**params))


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (automate(), "params.task"),
        (automate(task="   "), "params.task"),
        (automate(task="t", max_iterations=0), "params.max_iterations"),
        (automate(task="t", max_iterations=101), "params.max_iterations"),
        (automate(task="t", max_validation_attempts=11), "params.max_validation_attempts"),
        (automate(task="t", url="ftp://example.com"), "params.url"),
        (automate(task="t", trusted_hostnames=["https://x.com/"]), "params.trusted_hostnames[0]"),
        (automate(task="t", geo_target={"country": "Germany"}), "params.geo_target.country"),
    ],
)
async def test_automate_violations(harness: Harness, request_: Any, field: str) -> None:
    violations = await invalid(harness.runs.Automate(request_))
    assert field in violations


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (research(), "params.query"),
        (research(query="q" * 10_001), "params.query"),
        (research(query="q", mode=99), "params.mode"),  # type: ignore[arg-type]
        (research(query="q", fetch_timeout=0), "params.fetch_timeout"),
    ],
)
async def test_research_violations(harness: Harness, request_: Any, field: str) -> None:
    violations = await invalid(harness.runs.Research(request_))
    assert field in violations


async def test_query_of_exactly_ten_thousand_characters_is_accepted(harness: Harness) -> None:
    response = await harness.runs.CreateRun(
        run_service_pb2.CreateRunRequest(research=params_pb2.ResearchParams(query="q" * 10_000))
    )
    assert response.run.name.startswith("runs/")


async def test_create_run_violations_use_its_own_field_paths(harness: Harness) -> None:
    violations = await invalid(harness.runs.CreateRun(run_service_pb2.CreateRunRequest()))
    assert "params" in violations
    violations = await invalid(
        harness.runs.CreateRun(
            run_service_pb2.CreateRunRequest(
                automate=params_pb2.AutomateParams(task="t"),
                options=params_pb2.RunOptions(model="no-provider"),
            )
        )
    )
    assert "options.model" in violations


async def test_paging_and_names(harness: Harness) -> None:
    assert "page_token" in await invalid(
        harness.runs.ListRuns(run_service_pb2.ListRunsRequest(page_token="not-a-token"))
    )
    assert "page_size" in await invalid(
        harness.runs.ListRuns(run_service_pb2.ListRunsRequest(page_size=5000))
    )
    assert "states[0]" in await invalid(
        harness.runs.ListRuns(run_service_pb2.ListRunsRequest(states=[42]))
    )  # type: ignore[list-item]
    assert "page_token" in await invalid(
        harness.interactions.ListInteractions(isv.ListInteractionsRequest(page_token="%%%"))
    )
    assert "name" in await invalid(harness.runs.GetRun(run_service_pb2.GetRunRequest(name="x")))
    assert "after_sequence" in await invalid(
        harness.runs.StreamRunEvents(
            run_service_pb2.StreamRunEventsRequest(name="runs/0123456789abcdef", after_sequence=-1)
        )
    )


async def test_invalid_requests_leave_no_run_behind(harness: Harness) -> None:
    await invalid(harness.runs.Automate(automate()))
    listed = await harness.runs.ListRuns(run_service_pb2.ListRunsRequest())
    assert list(listed.runs) == []
