"""Overload slows a run down, never fails it: when the busy browser cannot produce the page's
snapshot within the action timeout, the model gets the fast viewport-first view for that step."""

from __future__ import annotations

from outrider.server.browser.page_model import SLOW_PAGE_NOTE
from outrider.v1 import params_pb2, run_service_pb2
from tests.browser.conftest import BrowserCaseFactory
from tests.browser.test_firewall import PLAN, VALID, act
from tests.support.requests import collect


async def test_a_snapshot_that_times_out_gives_the_fast_view_and_the_run_goes_on(
    browser_case: BrowserCaseFactory,
) -> None:
    # A timeout no snapshot can meet: every step must fall back to the fast view.
    case = await browser_case(
        {
            "turns": [
                PLAN,
                act("done", expect=["could not be read in full"], answer="Read."),
                VALID,
            ]
        },
        browser={"action_timeout": 0.001},
    )
    events = await collect(
        case.harness.runs.Automate(
            run_service_pb2.AutomateRequest(
                params=params_pb2.AutomateParams(
                    task="Read the shop.", url=f"{case.sites}/shop/index.html"
                )
            )
        )
    )
    complete = events[-2].automate.complete
    assert complete.success, complete
    actor_prompts = [p for p in case.prompts() if p["role"] == "actor"]
    sent = str(actor_prompts[0]["messages"])
    assert SLOW_PAGE_NOTE in sent and 'link "Log in to order"' in sent  # the fast view
