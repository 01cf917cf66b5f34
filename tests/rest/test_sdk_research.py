"""The tabstack SDK's agent.research(...) against a production research run over the fixture
web: every phase arrives as the SDK's typed event, with its fields populated."""

from __future__ import annotations

from pathlib import Path

import tabstack

from outrider.server.settings.research import ResearchSettings
from tests.research.conftest import render_scenario, research_settings
from tests.research.events import iteration_phases
from tests.research.web import Server
from tests.rest.conftest import RestFactory
from tests.rest.sdk_models import extras

QUERY = "What causes honey bee colony losses?"


async def test_sdk_research_yields_every_phase(
    make_rest: RestFactory, tmp_path: Path, web: Server, corpus: Path, search_apis: Server
) -> None:
    script = render_scenario("research_balanced.yaml", web.url, tmp_path / "scenario.yaml")
    options = research_settings(search_apis.url, corpus, ("corpus", "searxng"))
    case = await make_rest(
        production=True,
        model=f"scripted:{script}",
        network_allow=f"127.0.0.1:{web.port}",
        research=ResearchSettings(**options),
    )
    sdk = tabstack.AsyncTabstack(api_key="unused", base_url=case.base_url, max_retries=0)
    async with sdk:
        stream = await sdk.agent.research(query=QUERY, mode="balanced")
        events = [event async for event in stream]
    names = [e.event for e in events]
    assert names == [
        "start",
        "planning:start",
        "planning:end",
        *iteration_phases(),
        *iteration_phases(),
        "outlining:start",
        "outlining:end",
        "writing:start",
        "writing:end",
        "complete",
    ]
    for event in events:
        assert type(event).__module__ == "tabstack.types.research_event"
        assert not extras(event), (event.event, extras(event))
    complete = events[-1].data
    assert complete.report and complete.metadata.executed_queries  # type: ignore[union-attr]
    planning = events[2].data
    assert planning.questions and planning.complexity in ("simple", "moderate", "complex")  # type: ignore[union-attr]
