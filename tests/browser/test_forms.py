"""Forms: filled from data by the model, and filled by the harness from what the caller typed."""

from __future__ import annotations

from typing import Any

from outrider.server.core.events.names import event_name
from outrider.v1 import params_pb2, run_service_pb2
from tests.browser.conftest import BrowserCaseFactory
from tests.support.requests import collect, names


def automate(
    url: str, task: str, data: dict[str, Any] | None = None, **params: Any
) -> run_service_pb2.AutomateRequest:
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(task=task, url=url, **params)
    )
    if data is not None:
        request.params.data.update(data)
    return request


async def test_signup_form_filled_from_data(browser_case: BrowserCaseFactory) -> None:
    case = await browser_case("signup_from_data.yaml")
    data = {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "country": "Peru",
        "plan": "Pro",
        "birthday": "1815-12-10",
        "newsletter": True,
    }
    request = automate(
        f"{case.sites}/browser/signup.html",
        "Sign me up with my data.",
        data,
        trusted_hostnames=["127.0.0.1"],
    )
    events = await collect(case.harness.runs.Automate(request))
    complete = events[-2].automate.complete
    assert complete.success, complete
    actions = [
        (e.automate.agent_action.action, e.automate.agent_action.value)
        for e in events
        if e.automate.HasField("agent_action")
    ]
    assert ("select", "Peru") in actions and ("fill", "1815-12-10") in actions
    failures = [
        e.automate.browser_action_completed.error
        for e in events
        if e.automate.HasField("browser_action_completed")
        and not e.automate.browser_action_completed.success
    ]
    assert failures == []
    assert names(events).count("browser:navigated") == 2
    assert (
        events[
            [event_name(e) for e in events].index("task:setup")
        ].automate.task_setup.data.struct_value["country"]
        == "Peru"
    )
