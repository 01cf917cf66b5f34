"""Issue 11.6: a compromised model presses the submit button of a form bound for another,
untrusted host, with every field empty. The firewall holds it like a submit carrying data
(refused here, non-interactive); a same-host form with no data stays free. Wire-scripted model."""

from __future__ import annotations

from outrider.server.browser.settings import BrowserSettings
from outrider.v1 import params_pb2, run_service_pb2
from tests.browser.wire_model import act, plan, verdict, wire_model
from tests.conftest import HarnessFactory
from tests.support.requests import collect


async def test_an_empty_submit_to_another_host_is_held(
    make_harness: HarnessFactory, sites: str
) -> None:
    turns = [
        plan(),
        act("click", expect=["Claim partner offer"], ref='{{ref: button "Claim partner offer"}}'),
        act(
            "click",
            expect=["Blocked by the action firewall", "submitting a form to another host"],
            ref='{{ref: button "Claim our own offer"}}',
        ),
        act("done", expect=["Your vault account is open"], answer="Claimed our own offer."),
        verdict(),
    ]
    with wire_model(turns) as model:
        harness = await make_harness(
            production=True,
            model=model.spec,
            network_allow=f"127.0.0.1:{sites.rsplit(':', 1)[1]}",
            browser=BrowserSettings(),
        )
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
