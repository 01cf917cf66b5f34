"""The remaining actions and inputs: history, hover, focus, guardrails in the prompt, and a
form-data request the caller declines."""

from __future__ import annotations

from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import params_pb2, run_service_pb2
from tests.browser.conftest import BrowserCaseFactory
from tests.browser.test_firewall import PLAN, VALID, act
from tests.support.outbox import Outbox
from tests.support.requests import collect

GUARDRAILS = "Never buy anything. Stay on the fixture shop."


async def test_history_hover_focus_and_guardrails(browser_case: BrowserCaseFactory) -> None:
    case = await browser_case(
        {
            "turns": [
                PLAN,
                act("hover", ref='{{ref: link "Log in to order"}}'),
                act("focus", ref='{{ref: link "Log in to order"}}'),
                act("click", ref='{{ref: link "Log in to order"}}'),
                act("back", expect=['h1 "Log in"']),
                act("forward", expect=['h1 "Fixture Shop"']),
                act("reload", expect=['h1 "Log in"']),
                act("press", key="Tab"),
                act("done", expect=['h1 "Log in"'], answer="Went back and forth."),
                VALID,
            ]
        }
    )
    events = await collect(
        case.harness.runs.Automate(
            run_service_pb2.AutomateRequest(
                params=params_pb2.AutomateParams(
                    task="Browse.", url=f"{case.sites}/shop/index.html", guardrails=GUARDRAILS
                )
            )
        )
    )
    assert events[-2].automate.complete.success
    completed = [
        e.automate.browser_action_completed
        for e in events
        if e.automate.HasField("browser_action_completed")
    ]
    assert len(completed) == 7 and all(c.success for c in completed)
    run_rules = case.prompts()[1]["messages"][1]  # after the rules every run shares
    assert GUARDRAILS in run_rules and "always obey" in run_rules
    # the planner gets the run's rules too, but not the actor's rules about pages and refs
    planner = case.prompts()[0]
    assert planner["role"] == "planner" and GUARDRAILS in planner["messages"][0]
    assert "EXTERNAL_CONTENT" not in "".join(planner["messages"])
    assert "browser agent" in planner["messages"][0] and not planner["tools"]
    assert events[0].automate.task_setup.guardrails == GUARDRAILS


async def test_declined_form_data_tells_the_model(browser_case: BrowserCaseFactory) -> None:
    case = await browser_case(
        {
            "turns": [
                PLAN,
                act("request_input", refs=['{{ref: input "Email"}}'], reason="need it"),
                act("abort", expect=["The user declined to provide"], reason="no email"),
            ]
        }
    )
    params = params_pb2.AutomateParams(
        task="Log in.", url=f"{case.sites}/browser/login.html", interactive=True
    )
    outbox = Outbox(isv.InteractRequest(start=isv.InteractStart(automate=params)))
    events = []
    async for response in case.harness.interactions.Interact(outbox):
        if response.HasField("event"):
            events.append(response.event)
            request = response.event.automate.interactive_form_data_request
            if request.request_id:
                outbox.send(
                    isv.InteractRequest(
                        form_data=isv.FormDataAnswer(request_id=request.request_id, cancelled=True)
                    )
                )
    outbox.close()
    resolved = next(e.input_resolved for e in events if e.HasField("input_resolved"))
    assert not resolved.submitted
    assert events[-2].automate.complete.error.message == "the agent aborted: no email"
