"""Issue 11.5: outcomes told as they happened. An expired form-data request is not "the user
declined"; a scroll that did not move says the page is at its end; retry_count in
task:validation_error counts the model's retries (invalid calls in a row), from 1. The model is
scripted at the wire."""

from __future__ import annotations

from outrider.v1 import params_pb2, run_service_pb2
from tests.browser.wire_model import act, plan, wire_harness, wire_model
from tests.conftest import HarnessFactory
from tests.support.requests import collect


async def test_an_expired_request_is_not_a_refusal(
    make_harness: HarnessFactory, sites: str
) -> None:
    turns = [
        plan(),
        act("request_input", refs=['{{ref: input "Username"}}'], reason="your username"),
        act("abort", expect=["Nobody answered the request for"], reason="no answer"),
    ]
    with wire_model(turns) as model:
        harness = await wire_harness(make_harness, sites, model, interaction_ttl=1.0)
        request = run_service_pb2.AutomateRequest(
            params=params_pb2.AutomateParams(
                task="Sign in.", url=f"{sites}/vault/signin.html", interactive=True
            )
        )
        events = await collect(harness.runs.Automate(request))  # nobody answers
    assert not model.problems, model.problems
    assert "declined" not in model.requests_text()[-1]
    assert events[-1].automate.HasField("done")


async def test_scrolls_and_retry_counts_are_told_as_they_happened(
    make_harness: HarnessFactory, sites: str
) -> None:
    turns = [
        plan(),
        act("scroll", direction="down"),
        act("click", expect=["did not move: it is already at the end"], where="anywhere"),
        act("click", where="anywhere"),
        act("click", ref="E999"),  # valid arguments, failing action
        act("click", where="anywhere"),
        act("goto", url=f"{sites}/vault/ledger.html"),
        act("scroll", direction="down"),
        act("abort", expect=["scrolled the page down"], reason="seen enough"),
    ]
    with wire_model(turns) as model:
        harness = await wire_harness(make_harness, sites, model)
        request = run_service_pb2.AutomateRequest(
            params=params_pb2.AutomateParams(
                task="Read the notice.", url=f"{sites}/vault/short.html"
            )
        )
        events = await collect(harness.runs.Automate(request))
    assert not model.problems, model.problems
    retries = [
        e.automate.task_validation_error.retry_count
        for e in events
        if e.automate.HasField("task_validation_error")
    ]
    assert retries == [1, 2, 1], retries


async def test_an_expired_approval_is_not_a_rejection(
    make_harness: HarnessFactory, sites: str
) -> None:
    turns = [
        plan(),
        act("fill", ref='{{ref: input "Username"}}', value="lin"),
        act("abort", expect=["Nobody answered the approval for this fill"], reason="no answer"),
    ]
    with wire_model(turns) as model:
        harness = await wire_harness(make_harness, sites, model, interaction_ttl=1.0)
        request = run_service_pb2.AutomateRequest(
            params=params_pb2.AutomateParams(
                task="Sign in as lin.", url=f"{sites}/vault/signin.html", interactive=True
            )
        )
        events = await collect(harness.runs.Automate(request))  # nobody answers
    assert not model.problems, model.problems
    assert any(e.HasField("approval_requested") for e in events)
    assert "rejected" not in model.requests_text()[-1]
