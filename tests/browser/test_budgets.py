"""Every way a run ends maps to the seed's complete.error.code."""

from __future__ import annotations

from typing import Any

from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import params_pb2, run_pb2, run_service_pb2
from tests.browser.conftest import BrowserCaseFactory
from tests.browser.test_firewall import PLAN, act
from tests.support.requests import collect, names

SHOP = "/shop/index.html"


async def run(case: Any, **params: Any) -> list[Any]:
    return await collect(
        case.harness.runs.Automate(
            run_service_pb2.AutomateRequest(
                params=params_pb2.AutomateParams(task="Shop.", url=f"{case.sites}{SHOP}", **params)
            )
        )
    )


def failure(events: list[Any]) -> ae.AutomateFailure:
    complete = events[-2].automate.complete
    assert not complete.success and names(events)[-2:] == ["complete", "done"]
    return complete.error


async def test_max_iterations(browser_case: BrowserCaseFactory) -> None:
    case = await browser_case(
        {"turns": [PLAN, act("scroll", direction="down"), act("scroll", direction="up")]}
    )
    events = await run(case, max_iterations=2)
    assert failure(events).code == ae.AUTOMATE_ERROR_CODE_MAX_ITERATIONS
    assert names(events).count("agent:step") == 2
    run_state = (
        await case.harness.runs.GetRun(run_service_pb2.GetRunRequest(name=events[0].run))
    ).run
    assert (
        run_state.state == run_pb2.RUN_STATE_FAILED
        and run_state.outcome.error_code == "MAX_ITERATIONS"
    )


async def test_max_errors_after_consecutive_failed_actions(
    browser_case: BrowserCaseFactory,
) -> None:
    stale = [act("click", ref=f"E{900 + i}") for i in range(3)]
    case = await browser_case({"turns": [PLAN, *stale]}, browser={"max_consecutive_errors": 3})
    events = await run(case)
    assert failure(events).code == ae.AUTOMATE_ERROR_CODE_MAX_ERRORS
    errors = [
        e.automate.browser_action_completed.error
        for e in events
        if e.automate.HasField("browser_action_completed")
    ]
    assert len(errors) == 3 and all("look at the latest snapshot" in e for e in errors)


async def test_repeating_the_same_action_is_refused(browser_case: BrowserCaseFactory) -> None:
    same = act("scroll", direction="down")
    case = await browser_case(
        {
            "turns": [
                PLAN,
                same,
                same,
                same,
                same,
                act("abort", expect=["Refused: you already did"], reason="stuck"),
            ]
        }
    )
    events = await run(case)
    assert failure(events).code == ae.AUTOMATE_ERROR_CODE_TASK_ABORTED
    assert [
        e.automate.agent_action.action for e in events if e.automate.HasField("agent_action")
    ].count("scroll") == 3


async def test_weak_results_go_back_until_validation_attempts_run_out(
    browser_case: BrowserCaseFactory,
) -> None:
    weak = {
        "role": "validator",
        "reply": {
            "data": {
                "completion_quality": "partial",
                "observation": "no price",
                "feedback": "Give the price.",
            }
        },
    }
    case = await browser_case(
        {
            "turns": [
                PLAN,
                act("done", answer="A mug."),
                weak,
                act("done", expect=["Give the price."], answer="A red mug."),
                weak,
            ]
        }
    )
    events = await run(case, max_validation_attempts=2)
    error = failure(events)
    assert error.code == ae.AUTOMATE_ERROR_CODE_TASK_FAILED and "partial" in error.message
    assert events[-2].automate.complete.final_answer == "A red mug."
    assert names(events).count("task:validated") == 2


async def test_schema_invalid_replies_are_retried_with_the_errors(
    browser_case: BrowserCaseFactory,
) -> None:
    case = await browser_case(
        {
            "turns": [
                {"role": "planner", "reply": {"data": {"plan": 42}}},
                {
                    "role": "planner",
                    "expect": ["Your reply was invalid"],
                    "reply": {"data": {"plan": "p", "success_criteria": "s"}},
                },
                {
                    "role": "actor",
                    "reply": {
                        "tool_calls": [{"name": "click", "arguments": {"where": "anywhere"}}]
                    },
                },
                act("abort", expect=["Invalid call"], reason="enough"),
            ]
        }
    )
    events = await run(case)
    errors = [
        e.automate.task_validation_error
        for e in events
        if e.automate.HasField("task_validation_error")
    ]
    assert [e.retry_count for e in errors] == [1, 1]
    assert "$.plan must be a string" in errors[0].errors
    assert (
        "$.ref is required" in errors[1].errors and "$.where is not an argument" in errors[1].errors
    )
    assert failure(events).code == ae.AUTOMATE_ERROR_CODE_TASK_ABORTED


async def test_model_failure_fails_the_task(browser_case: BrowserCaseFactory) -> None:
    case = await browser_case({"turns": [PLAN, {"role": "actor", "error": "provider exploded"}]})
    events = await run(case)
    assert failure(events).code == ae.AUTOMATE_ERROR_CODE_TASK_FAILED
    generation_errors = [
        e.automate.ai_generation_error for e in events if e.automate.HasField("ai_generation_error")
    ]
    assert [g.error for g in generation_errors] == ["provider exploded"]
