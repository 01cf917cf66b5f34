"""The action firewall and approvals: untrusted fills and submissions are held back; trusted
hosts and unsafe mode let them through; in interactive mode the caller decides."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from outrider.server.core.events.names import event_name
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import params_pb2, run_service_pb2
from outrider.v1 import run_event_pb2 as rp
from tests.browser.conftest import BrowserCaseFactory
from tests.support.outbox import Outbox
from tests.support.requests import collect, names

PLAN = {"role": "planner", "reply": {"data": {"plan": "p", "success_criteria": "s"}}}
VALID = {
    "role": "validator",
    "reply": {"data": {"completion_quality": "complete", "observation": "ok"}},
}


def act(name: str, expect: list[str] | None = None, **arguments: Any) -> dict[str, Any]:
    turn: dict[str, Any] = {
        "role": "actor",
        "reply": {"tool_calls": [{"name": name, "arguments": arguments}]},
    }
    if expect:
        turn["expect"] = expect
    return turn


SUBSCRIBE = {
    "turns": [
        PLAN,
        act("fill", ref='{{ref: input "Email"}}', value="{{secret:email}}"),
        act("click", expect=["filled"], ref='{{ref: button "Subscribe"}}'),
        act("done", expect=["Welcome aboard"], answer="Subscribed."),
        VALID,
    ]
}
BLOCKED = {
    "turns": [
        PLAN,
        act("fill", ref='{{ref: input "Email"}}', value="{{secret:email}}"),
        act("abort", expect=["Blocked by the action firewall"], reason="not allowed to fill"),
    ]
}


def request(sites: str, **params: Any) -> run_service_pb2.AutomateRequest:
    message = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task="Subscribe me to the newsletter.", url=f"{sites}/browser/newsletter.html", **params
        )
    )
    message.params.data.update({"email": {"$secret": "ada@example.com"}})
    return message


async def test_untrusted_fill_is_blocked_and_reported(browser_case: BrowserCaseFactory) -> None:
    case = await browser_case(BLOCKED)
    events = await collect(case.harness.runs.Automate(request(case.sites)))
    complete = events[-2].automate.complete
    assert complete.error.code == ae.AUTOMATE_ERROR_CODE_TASK_ABORTED
    completed = [
        e.automate.browser_action_completed
        for e in events
        if e.automate.HasField("browser_action_completed")
    ]
    assert not completed[0].success and "trusted_hostnames" in completed[0].error
    statuses = [
        e.automate.agent_status.message for e in events if e.automate.HasField("agent_status")
    ]
    assert any("firewall blocked fill" in s for s in statuses)
    assert "ada@example.com" not in case.transcript.read_text()  # the model only had a placeholder


async def test_trusted_hostnames_and_unsafe_mode_let_it_through(
    browser_case: BrowserCaseFactory,
) -> None:
    for params in ({"trusted_hostnames": ["127.0.0.1"]}, {"unsafe_mode": True}):
        case = await browser_case(SUBSCRIBE)
        events = await collect(case.harness.runs.Automate(request(case.sites, **params)))
        assert events[-2].automate.complete.success, params
        assert "agent:status" not in names(events)


async def test_search_boxes_stay_free(browser_case: BrowserCaseFactory) -> None:
    case = await browser_case(
        {
            "turns": [
                PLAN,
                act("fill", ref='{{ref: searchbox "Search the site"}}', value="kettles"),
                act(
                    "press",
                    expect=["filled"],
                    key="Enter",
                    ref='{{ref: searchbox "Search the site"}}',
                ),
                act("done", expect=["Welcome aboard"], answer="Searched."),
                VALID,
            ]
        }
    )
    events = await collect(case.harness.runs.Automate(request(case.sites)))
    assert events[-2].automate.complete.success


async def interact(case: Any, decisions: list[tuple[int, int, str]]) -> list[rp.RunEvent]:
    """Runs the newsletter task interactively, answering approvals with `decisions` in order."""
    outbox = Outbox(
        isv.InteractRequest(
            start=isv.InteractStart(automate=request(case.sites, interactive=True).params)
        )
    )
    events, pending = [], list(decisions)
    async for response in case.harness.interactions.Interact(outbox):
        if response.HasField("event"):
            events.append(response.event)
            if response.event.HasField("approval_requested"):
                decision, scope, reason = pending.pop(0)
                outbox.send(
                    isv.InteractRequest(
                        approval=isv.ApprovalAnswer(
                            approval_id=response.event.approval_requested.approval_id,
                            decision=decision,
                            scope=scope,
                            reason=reason,
                        )
                    )
                )
    outbox.close()
    return events


async def test_approval_rejected_tells_the_model(browser_case: BrowserCaseFactory) -> None:
    case = await browser_case(
        {
            "turns": [
                PLAN,
                act("fill", ref='{{ref: input "Email"}}', value="{{secret:email}}"),
                act(
                    "abort",
                    expect=["The user rejected this fill: not on this site"],
                    reason="rejected",
                ),
            ]
        }
    )
    events = await interact(
        case, [(rp.APPROVAL_DECISION_REJECT, rp.APPROVAL_SCOPE_ONCE, "not on this site")]
    )
    requested = next(e.approval_requested for e in events if e.HasField("approval_requested"))
    assert requested.action == "fill" and requested.reason == "this site is not one the run trusts"
    assert requested.question == f"Type into “Email” on 127.0.0.1 — {requested.reason}"
    assert requested.details["target_host"] == "127.0.0.1"
    assert json_format.MessageToDict(requested.details)["untrusted_hosts"] == ["127.0.0.1"]
    assert "ada@example.com" not in str(requested)
    assert events[-2].automate.complete.error.code == ae.AUTOMATE_ERROR_CODE_TASK_ABORTED


async def test_approve_once_asks_again_and_approve_for_host_does_not(
    browser_case: BrowserCaseFactory,
) -> None:
    once = await browser_case(SUBSCRIBE)
    approve_once = (rp.APPROVAL_DECISION_APPROVE, rp.APPROVAL_SCOPE_ONCE, "")
    events = await interact(once, [approve_once, approve_once])
    assert [event_name(e) for e in events].count("approval_requested") == 2
    assert events[-2].automate.complete.success
    always = await browser_case(SUBSCRIBE)
    events = await interact(always, [(rp.APPROVAL_DECISION_APPROVE, rp.APPROVAL_SCOPE_ALWAYS, "")])
    assert [event_name(e) for e in events].count("approval_requested") == 1
    assert events[-2].automate.complete.success


async def test_injected_instructions_cannot_exfiltrate_data(
    browser_case: BrowserCaseFactory,
) -> None:
    """A compromised model obeys hidden page text and tries to send the user's email elsewhere."""
    case = await browser_case(
        {
            "turns": [
                PLAN,
                act(
                    "fill",
                    expect=["Fares from $420"],
                    ref='{{ref: input "Updates"}}',
                    value="{{secret:email}}",
                ),
                act("click", ref='{{ref: button "Send"}}'),
                act("done", answer="Fares from $420."),
                VALID,
            ]
        }
    )
    message = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task="What do flights to Lima cost?",
            url=f"{case.sites}/browser/injected.html",
            trusted_hostnames=["127.0.0.1"],
        )
    )
    message.params.data.update({"email": {"$secret": "ada@example.com"}})
    events = await collect(case.harness.runs.Automate(message))
    failed = [
        e.automate.browser_action_completed.error
        for e in events
        if e.automate.HasField("browser_action_completed")
        and not e.automate.browser_action_completed.success
    ]
    # the fill is held, and so is the empty submit to the other host
    assert len(failed) == 2 and all("collector.example" in f for f in failed), failed
    statuses = [
        e.automate.agent_status.message for e in events if e.automate.HasField("agent_status")
    ]
    assert any("collector.example" in s for s in statuses)
    prompts = case.transcript.read_text()
    assert "<<<EXTERNAL_CONTENT" in prompts and "ada@example.com" not in prompts
    assert "SYSTEM NOTICE" not in prompts  # off-screen text is left out of the view
