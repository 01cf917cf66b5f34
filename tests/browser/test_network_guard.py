"""The network guard in the browser: private, metadata and non-allowlisted destinations are
refused (also behind redirects and in iframes), as an error the model sees and an event the caller
sees, never a hang."""

from __future__ import annotations

from typing import Any

from outrider.v1 import params_pb2, run_service_pb2
from tests.browser.conftest import BrowserCaseFactory
from tests.browser.test_firewall import PLAN, VALID, act
from tests.support.requests import collect


def scenario(sites: str, unallowed_port: int) -> dict[str, Any]:
    chain = f"{sites}/redirect?to={sites}/redirect?to=http://10.9.9.9/inner"
    return {
        "turns": [
            PLAN,
            act("goto", url="http://169.254.169.254/latest/meta-data/"),
            act("goto", expect=["cloud metadata address"], url="http://10.1.2.3/admin"),
            act("goto", expect=["private address"], url=f"http://127.0.0.1:{unallowed_port}/"),
            act("goto", expect=["loopback address"], url=chain),
            act("goto", expect=["10.9.9.9"], url=f"{sites}/browser/private_frame.html"),
            act("done", expect=["Public text stays readable", "10.1.2.3"], answer="Checked."),
            VALID,
        ]
    }


async def test_refusals_are_errors_and_events_never_hangs(browser_case: BrowserCaseFactory) -> None:
    placeholder = await browser_case({"turns": []})  # learn the fixture URL first
    sites = placeholder.sites
    unallowed_port = int(sites.rsplit(":", 1)[1]) + 1
    case = await browser_case(scenario(sites, unallowed_port))
    events = await collect(
        case.harness.runs.Automate(
            run_service_pb2.AutomateRequest(
                params=params_pb2.AutomateParams(task="Probe.", url=f"{sites}/shop/index.html")
            )
        )
    )
    assert events[-2].automate.complete.success
    errors = [
        e.automate.browser_action_completed.error
        for e in events
        if e.automate.HasField("browser_action_completed")
    ]
    assert "cloud metadata address" in errors[0]
    assert "private address" in errors[1]
    assert "loopback address" in errors[2]
    assert "10.9.9.9" in errors[3]
    assert errors[4] == ""  # the framed page itself loads; only its iframe is refused
    statuses = [
        e.automate.agent_status.message for e in events if e.automate.HasField("agent_status")
    ]
    assert any("10.1.2.3" in s and "private" in s for s in statuses)
    assert any("169.254.169.254" in s for s in statuses)
