"""Very large pages get a fast viewport-first view; find reaches what is not in view."""

from __future__ import annotations

from outrider.v1 import params_pb2, run_service_pb2
from tests.browser.conftest import BrowserCaseFactory
from tests.browser.test_firewall import PLAN, VALID, act
from tests.support.requests import collect


async def test_three_thousand_rows_with_find_beyond_the_viewport(
    browser_case: BrowserCaseFactory,
) -> None:
    case = await browser_case(
        {
            "turns": [
                PLAN,
                act(
                    "click",
                    expect=["a very large page", 'button "Add 5"', "more elements below"],
                    ref='{{ref: button "Add 5"}}',
                ),
                act("find", expect=["Added 5"], text="Item 2999"),
                act("click", expect=['"Item 2999"'], ref='{{ref: "Item 2999"}}'),
                act("done", expect=['"Item 2999"', "Add 2999"], answer="Found the last item."),
                VALID,
            ]
        }
    )
    events = await collect(
        case.harness.runs.Automate(
            run_service_pb2.AutomateRequest(
                params=params_pb2.AutomateParams(
                    task="Reach the last item.", url=f"{case.sites}/rows?n=3000"
                )
            )
        )
    )
    complete = events[-2].automate.complete
    assert complete.success, complete
    views = [
        e.automate.system_debug_compression
        for e in events
        if e.automate.HasField("system_debug_compression")
    ]
    assert all(v.compressed_size <= 24_000 for v in views)
    assert events[-3].automate.task_metrics.step_count == 4
