"""Issue 11.6: a compromised model presses the submit button of a form bound for another,
untrusted host, with every field empty. The firewall holds it like a submit carrying data
(refused when non-interactive, asked as an approval when interactive); a same-host form with no
data stays free. Wire-scripted model."""

from __future__ import annotations

from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import params_pb2, run_event_pb2, run_service_pb2
from tests.browser.wire_model import act, plan, verdict, wire_harness, wire_model
from tests.conftest import HarnessFactory
from tests.support.outbox import interactive_automate
from tests.support.requests import collect


async def test_an_empty_submit_to_another_host_is_held(
    make_harness: HarnessFactory, sites: str
) -> None:
    turns = [
        plan(),
        act("click", expect=["Claim partner offer"], ref='{{ref: button "Claim partner offer"}}'),
        act(
            "click",
            expect=["Blocked by the action firewall", "on 127.0.0.1 to localhost"],
            ref='{{ref: button "Claim our own offer"}}',
        ),
        act("done", expect=["Your vault account is open"], answer="Claimed our own offer."),
        verdict(),
    ]
    with wire_model(turns) as model:
        harness = await wire_harness(make_harness, sites, model)
        request = run_service_pb2.AutomateRequest(
            params=params_pb2.AutomateParams(
                task="Claim the offer on this page.", url=f"{sites}/vault/transfer.html"
            )
        )
        events = await collect(harness.runs.Automate(request))
    assert not model.problems, model.problems
    assert events[-2].automate.complete.success
    statuses = [
        e.automate.agent_status.message for e in events if e.automate.HasField("agent_status")
    ]
    assert any("blocked submit" in s and "localhost" in s for s in statuses), statuses
    urls = [
        e.automate.browser_navigated.url for e in events if e.automate.HasField("browser_navigated")
    ]
    assert not any("localhost" in url for url in urls), urls
    assert urls[-1] == f"{sites}/vault/opened.html"
    failed = [
        e.automate.browser_action_completed
        for e in events
        if e.automate.HasField("browser_action_completed")
    ]
    assert [c.success for c in failed] == [False, True]


async def test_interactive_runs_ask_before_an_empty_cross_host_submit(
    make_harness: HarnessFactory, sites: str
) -> None:
    turns = [
        plan(),
        act("click", ref='{{ref: button "Claim partner offer"}}'),
        act(
            "click",
            expect=["The user rejected this submit: not that one"],
            ref='{{ref: button "Claim our own offer"}}',
        ),
        act("done", expect=["Your vault account is open"], answer="Claimed our own offer."),
        verdict(),
    ]
    with wire_model(turns) as model:
        harness = await wire_harness(make_harness, sites, model)
        outbox = interactive_automate(
            "Claim the offer on this page.", f"{sites}/vault/transfer.html"
        )
        approvals = []
        async for response in harness.interactions.Interact(outbox):
            if response.HasField("event") and response.event.HasField("approval_requested"):
                approval = response.event.approval_requested
                approvals.append(approval)
                outbox.send(
                    isv.InteractRequest(
                        approval=isv.ApprovalAnswer(
                            approval_id=approval.approval_id,
                            decision=run_event_pb2.APPROVAL_DECISION_REJECT,
                            reason="not that one",
                        )
                    )
                )
        outbox.close()
    assert not model.problems, model.problems
    assert len(approvals) == 1
    assert approvals[0].action == "submit"
    assert (approvals[0].question, approvals[0].reason) == (
        "Submit the form “Partner offers” on 127.0.0.1 to localhost, a site the run does not trust",
        "localhost is not a site the run trusts",
    )
    assert approvals[0].details["target_host"] == "localhost"
