"""Issue 10, item 1: the research renderer's Chromium is behind the guarded proxy. A rendered page
that opens WebSockets, iframes and fetch()es that redirect, WebRTC ICE servers, WebTransport, or
names that resolve to loopback reaches no refused address: listeners there count every connection
and datagram (expect 0). A control run of the same page in an unguarded Chromium shows the probes
do reach the listeners, so the zeros mean something. 10.x and 169.254.169.254: test_render_netns."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from outrider.server.fetch.render import Renderer
from outrider.server.net.domains import DomainPolicy
from outrider.server.net.guard import NetworkGuard
from outrider.server.settings import Settings
from outrider.v1 import params_pb2
from outrider.v1 import research_events_pb2 as re_pb
from tests.research.conftest import ResearchCaseFactory
from tests.research.events import complete, payloads
from tests.research.probes import (
    PROBES,
    PROBES_DIR,
    listeners,
    outcomes,
    probe_url,
    render_unguarded,
)
from tests.research.scenarios import turn
from tests.research.web import Server, fixture_web

LOOPBACK = ("127.0.0.1", "::1")


@pytest.fixture
def web() -> Iterator[Server]:
    """The probe page's own server (overrides the bee site): allowed, and it redirects."""
    with fixture_web(PROBES_DIR) as server:
        yield server


def loopback_targets(port: int) -> list[str]:
    """Loopback by address, IPv6, names, and spellings: 0.0.0.0 (this host on Linux), an
    IPv4-mapped IPv6 address and a decimal integer."""
    names = [f"localhost:{port}", f"probe.localhost:{port}"]
    spellings = [f"0.0.0.0:{port}", f"[::ffff:127.0.0.1]:{port}", f"2130706433:{port}"]
    return [f"127.0.0.1:{port}", f"[::1]:{port}", *names, *spellings]


async def render(web: Server, url: str, allow: tuple[str, ...] = (), **domains: list[str]) -> str:
    guard = NetworkGuard([f"127.0.0.1:{web.port}", *allow])
    policy = DomainPolicy.of(domains.get("allowed", []), domains.get("blocked", []))
    renderer = Renderer(Settings().chromium_path, guard, policy, "outrider-test")
    try:
        return await renderer.render(url, 60)
    finally:
        await renderer.aclose()


def redirects_asked(web: Server) -> int:
    return sum(path.startswith("/redirect?") for path in web.traffic.paths())


async def test_the_probes_reach_refused_loopback_from_an_unguarded_chromium(web: Server) -> None:
    async with listeners(LOOPBACK) as refused:
        targets = loopback_targets(refused.port)
        html = await render_unguarded(probe_url(web.url, targets))
    assert len(outcomes(html)) == len(targets) * len(PROBES)
    seen = refused.reached.paths()
    for kind in ("ws", "frame", "fetch"):  # what request routing cannot see
        assert {f"/{kind}/{target}" for target in targets} <= seen, seen
    assert refused.reached.udp["127.0.0.1"] and refused.reached.udp["::1"]  # WebRTC, WebTransport


async def test_a_rendered_page_opens_no_connection_to_a_refused_address(web: Server) -> None:
    async with listeners(LOOPBACK) as refused:
        targets = loopback_targets(refused.port)
        html = await render(web, probe_url(web.url, targets))
    assert len(outcomes(html)) == len(targets) * len(PROBES), html[-2000:]
    assert refused.reached.total == 0, refused.reached
    assert redirects_asked(web) == 2 * len(targets)  # every frame and fetch met its 302


async def test_the_runs_domain_policy_applies_to_every_connection(web: Server) -> None:
    async with listeners(LOOPBACK) as other:
        allow = (f"127.0.0.1:{other.port}", f"[::1]:{other.port}")  # the guard lets it pass
        blocked, passing = f"localhost:{other.port}", f"127.0.0.1:{other.port}"
        url = probe_url(web.url, [blocked, passing], ("socket", "frame", "fetched"))
        html = await render(web, url, allow, blocked=["localhost"])
    assert len(outcomes(html)) == 6, html[-2000:]
    seen = other.reached.paths()
    assert not [path for path in seen if blocked in path], seen
    assert {f"/ws/{passing}", f"/frame/{passing}", f"/fetch/{passing}"} <= seen  # relayed


async def test_a_research_run_renders_behind_the_proxy_with_its_domain_policy(
    research_case: ResearchCaseFactory, web: Server
) -> None:
    plan = {
        "objective": "Read the probe page.",
        "plan": "Read it.",
        "complexity": "simple",
        "questions": ["What does the probe page say?"],
        "queries": ["probe"],
    }
    script = {"turns": [turn("planner", data=plan), turn("writer", text="It probes [S1].")]}
    async with listeners(LOOPBACK) as refused, listeners(LOOPBACK) as other:
        allow = f"127.0.0.1:{web.port},127.0.0.1:{other.port},[::1]:{other.port}"
        case = await research_case(
            script, providers=("searxng",), settings={"network_allow": allow}, js_fallback=True
        )
        blocked, passing = f"localhost:{other.port}", f"127.0.0.1:{other.port}"
        targets = [*loopback_targets(refused.port), blocked, passing]
        url = probe_url(web.url, targets)
        events = await case.research(
            f"Summarise {url}",
            re_pb.RESEARCH_MODE_FAST,
            options=params_pb2.RunOptions(blocked_domains=["localhost"]),
            fetch_timeout=90,
        )
    assert refused.reached.total == 0, refused.reached
    seen = other.reached.paths()
    assert not [path for path in seen if blocked in path], seen  # the run's blocked_domains
    assert {f"/ws/{passing}", f"/frame/{passing}", f"/fetch/{passing}"} <= seen  # relayed
    assert payloads(events, "prefetching_end")[0].fetched == 1
    assert web.traffic.paths().count(url.removeprefix(web.url)) == 2  # read, then rendered
    assert redirects_asked(web) == 2 * len(targets)
    assert [page.url for page in complete(events).metadata.cited_pages] == [url]
