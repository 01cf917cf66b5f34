"""Issue 10, item 1, the same class in the browser agent: its Chromium sends everything through
the guarded proxy, but WebRTC ICE servers (STUN/TURN) and WebTransport would send UDP straight to
any address a page names. Shared Chromium flags allow WebRTC only over the proxy, so a page the
agent opens reaches no refused listener (TCP or UDP) by any probe; test_render_guard shows the
same page reaching them from an unguarded Chromium."""

from __future__ import annotations

from outrider.v1 import params_pb2, run_service_pb2
from tests.browser.conftest import BrowserCaseFactory
from tests.browser.test_firewall import PLAN, VALID, act
from tests.research.probes import PROBES_DIR, listeners, probe_url
from tests.research.web import fixture_web
from tests.support.requests import collect


async def test_a_page_in_the_browser_agent_reaches_no_refused_address(
    browser_case: BrowserCaseFactory, sites: str
) -> None:
    async with listeners(("127.0.0.1", "::1")) as refused:
        with fixture_web(PROBES_DIR) as web:
            url = probe_url(web.url, [f"127.0.0.1:{refused.port}", f"[::1]:{refused.port}"])
            scenario = {
                "turns": [
                    PLAN,
                    act("wait", seconds=6),
                    act("done", expect=["probes done"], answer="Probed."),
                    VALID,
                ]
            }
            allow = f"127.0.0.1:{sites.rsplit(':', 1)[1]},127.0.0.1:{web.port}"
            case = await browser_case(scenario, network_allow=allow)
            events = await collect(
                case.harness.runs.Automate(
                    run_service_pb2.AutomateRequest(
                        params=params_pb2.AutomateParams(task="Probe.", url=url)
                    )
                )
            )
    assert events[-2].automate.complete.success
    assert refused.reached.total == 0, refused.reached
