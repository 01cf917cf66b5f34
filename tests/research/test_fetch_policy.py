"""What a run may fetch and reuse: caches (and nocache), robots.txt, the network guard, and
citations of pages the run never fetched."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from outrider.v1 import params_pb2
from outrider.v1 import research_events_pb2 as re_pb
from tests.research.conftest import ResearchCaseFactory
from tests.research.events import complete, payloads
from tests.research.web import SearchBehaviour, Server, fixture_web

FAST = re_pb.RESEARCH_MODE_FAST
QUERY = "Why do honey bee colonies die?"


@pytest.fixture
def elsewhere() -> Iterator[Server]:
    """A second local server that is NOT allowlisted: a private address to the guard."""
    with fixture_web() as server:
        yield server


async def test_a_second_identical_run_is_served_from_caches_and_nocache_bypasses_them(
    research_case: ResearchCaseFactory,
) -> None:
    case = await research_case("research_fast.yaml")
    first = complete(await case.research(QUERY, FAST)).metadata.metrics
    first_requests = sorted(case.web.traffic.paths())
    second = complete(await case.research(QUERY, FAST)).metadata.metrics
    # only robots.txt, for the disallowed pages (refusals are not cached); no page
    assert sorted(case.web.traffic.paths()) == sorted([*first_requests, "/robots.txt"])
    assert first.cached_fetches == 0 and not first.cached_searches
    assert second.fetches == first.fetches > 0
    assert second.cached_fetches == second.fetches
    assert second.cached_searches == {"corpus": 2} == dict(second.searches)
    third = complete(await case.research(QUERY, FAST, nocache=True)).metadata.metrics
    assert third.cached_fetches == 0 and not third.cached_searches
    assert third.fetches == first.fetches
    all_three = sorted([*first_requests, "/robots.txt", *first_requests])
    assert sorted(case.web.traffic.paths()) == all_three


async def test_robots_disallowed_pages_are_counted_and_never_fetched(
    research_case: ResearchCaseFactory,
) -> None:
    case = await research_case("research_fast.yaml")
    events = await case.research(QUERY, FAST)
    done = complete(events)
    assert done.metadata.metrics.robots_blocked == 2  # both pages under /private/
    paths = case.web.traffic.paths()
    assert "/robots.txt" in paths
    assert not [p for p in paths if p.startswith("/private/")]
    assert all("/private/" not in p.url for p in done.metadata.cited_pages)
    assert payloads(events, "analyzing_end")[0].failed >= 2
    agents = {agent for _, agent in case.web.traffic.requests}
    assert len(agents) == 1 and agents.pop().startswith("OutriderResearch/")


async def test_a_search_result_on_a_private_address_is_not_fetched(
    research_case: ResearchCaseFactory, search_behaviour: SearchBehaviour, elsewhere: Server
) -> None:
    answer = search_behaviour.results
    secret = {"url": f"{elsewhere.url}/varroa.html", "title": "Varroa", "snippet": "Mites."}
    search_behaviour.results = lambda query: [secret, *answer(query)]
    case = await research_case("research_fast.yaml", providers=("searxng",))
    events = await case.research(QUERY, FAST)
    done = complete(events)
    assert elsewhere.traffic.paths() == []  # not even robots.txt was asked for
    assert done.metadata.metrics.searches == {"searxng": 2}
    assert all(not p.url.startswith(elsewhere.url) for p in done.metadata.cited_pages)
    assert payloads(events, "analyzing_end")[0].failed >= 1
    assert case.web.traffic.paths()  # the allowlisted fixture web was read


async def test_the_runs_blocked_domains_are_never_contacted(
    research_case: ResearchCaseFactory,
) -> None:
    case = await research_case("research_fast.yaml")
    options = params_pb2.RunOptions(blocked_domains=["127.0.0.1"])
    events = await case.research(QUERY, FAST, options=options)
    done = complete(events)
    assert case.web.traffic.paths() == []
    assert not done.metadata.cited_pages and done.metadata.metrics.fetches == 0
    assert payloads(events, "analyzing_end")[0].failed == 8


async def test_a_writer_citing_pages_the_run_did_not_fetch_gets_them_removed_and_counted(
    research_case: ResearchCaseFactory,
) -> None:
    case = await research_case("research_fast.yaml")
    done = complete(await case.research(QUERY, FAST))
    body = done.report.split("## Sources")[0]
    assert "S99" not in done.report and "private/" not in done.report
    assert "Removed 3 citations of pages the run did not fetch" in done.message
    assert f"{case.web.url}/private/unpublished-study.html" in done.message
    assert [p.id for p in done.metadata.cited_pages] == ["S1", "S2"]
    assert "[S2]." in body and "[S2, S99]" not in body
    fetched = {f"{case.web.url}{path}" for path in case.web.traffic.paths()}
    assert {p.url for p in done.metadata.cited_pages} <= fetched
    claims = dict((p.id, list(p.claims)) for p in done.metadata.cited_pages)
    assert claims["S1"] == ["Varroa mites are the leading cause of colony losses."]
    # fast mode skips analysis, evaluation, outline and judging: no such metadata
    meta = done.metadata
    assert not meta.gap_evaluations and not meta.judgments and not meta.HasField("outline")
    assert not meta.cited_pages[0].HasField("summary")
