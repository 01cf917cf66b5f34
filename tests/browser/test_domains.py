"""Per-run allowed and blocked domains, enforced by the harness on every request."""

from __future__ import annotations

import grpc
import pytest

from outrider.v1 import params_pb2, run_service_pb2
from tests.browser.conftest import BrowserCaseFactory
from tests.browser.test_firewall import PLAN, act
from tests.support.harness import rich_error
from tests.support.requests import collect

ABORT = {"turns": [PLAN, act("abort", reason="cannot reach the page")]}


@pytest.mark.parametrize(
    ("options", "why"),
    [
        ({"blocked_domains": ["127.0.0.1"]}, "blocked_domains"),
        ({"allowed_domains": ["example.com"]}, "not in this run's allowed_domains"),
    ],
)
async def test_domain_policy_refuses_the_start_page(
    browser_case: BrowserCaseFactory, options: dict[str, list[str]], why: str
) -> None:
    case = await browser_case({"turns": [PLAN, act("abort", expect=[why], reason="refused")]})
    events = await collect(
        case.harness.runs.Automate(
            run_service_pb2.AutomateRequest(
                params=params_pb2.AutomateParams(
                    task="Open it.", url=f"{case.sites}/shop/index.html"
                ),
                options=params_pb2.RunOptions(**options),
            )
        )
    )
    statuses = [
        e.automate.agent_status.message for e in events if e.automate.HasField("agent_status")
    ]
    assert any(why in s for s in statuses)
    assert events[-2].automate.complete.error.message == "the agent aborted: refused"


async def test_allowed_domain_lets_the_page_load(browser_case: BrowserCaseFactory) -> None:
    case = await browser_case(
        {"turns": [PLAN, act("abort", expect=["Fixture Shop"], reason="seen")]}
    )
    events = await collect(
        case.harness.runs.Automate(
            run_service_pb2.AutomateRequest(
                params=params_pb2.AutomateParams(
                    task="Open it.", url=f"{case.sites}/shop/index.html"
                ),
                options=params_pb2.RunOptions(allowed_domains=["127.0.0.1"]),
            )
        )
    )
    assert events[-2].automate.complete.error.message == "the agent aborted: seen"


async def test_bad_domains_are_invalid(browser_case: BrowserCaseFactory) -> None:
    case = await browser_case(ABORT)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await case.harness.runs.Automate(
            run_service_pb2.AutomateRequest(
                params=params_pb2.AutomateParams(task="t"),
                options=params_pb2.RunOptions(blocked_domains=["https://x.com/path"]),
            )
        ).read()
    assert "options.blocked_domains[0]" in rich_error(caught.value).violations
