"""The research tool over MCP: the production research agent on the fixture web (local corpus,
fake search APIs, scripted model): each phase as progress, the report with the citations the
run checked, and its sources as resource links."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import types

from outrider.server.settings.research import ResearchSettings
from tests.mcp.support import McpCase, Progress, http_client
from tests.research.conftest import (
    corpus,
    render_scenario,
    research_settings,
    search_apis,
    search_behaviour,
    web,
)
from tests.research.web import Server
from tests.rest.support import start_rest
from tests.security.tenants import two_tenants

RESEARCH_FIXTURES = (corpus, search_apis, search_behaviour, web)


@pytest.fixture
async def research_mcp(
    tmp_path: Path, web: Server, corpus: Path, search_apis: Server
) -> AsyncIterator[McpCase]:
    keys = two_tenants(tmp_path)
    script = render_scenario("research_fast.yaml", web.url, tmp_path / "scenario.yaml")
    case = await start_rest(
        tmp_path / "data",
        production=True,
        keys_file=keys.file,
        model=f"scripted:{script}",
        network_allow=f"127.0.0.1:{web.port}",
        research=ResearchSettings(**research_settings(search_apis.url, corpus, ("corpus",))),
    )
    try:
        yield McpCase(case, keys, web.url, tmp_path)
    finally:
        await case.stop()


async def test_a_report_with_checked_citations_and_source_links(research_mcp: McpCase) -> None:
    progress = Progress()
    async with http_client(research_mcp, research_mcp.keys.keys["beta-1"], "auto") as client:
        result = await client.call_tool(
            "research",
            {"query": "Why do honey bee colonies die?", "mode": "fast"},
            progress_callback=progress,
        )

    content = result.structured_content or {}
    assert (content["state"], content["success"]) == ("succeeded", True), content
    assert "Varroa mites" in content["report"]
    cited = content["citations"]
    assert cited and all(c["url"].startswith(research_mcp.sites) for c in cited)
    assert all(c["claims"] for c in cited)
    assert "/private/unpublished-study.html" not in str(cited)  # never fetched: not a citation
    links = [b for b in result.content if isinstance(b, types.ResourceLink)]
    assert [str(link.uri) for link in links] == [c["url"] for c in cited]
    assert [s["url"] for s in content["sources"]] == [c["url"] for c in cited]
    assert any("plan" in m.lower() for m in progress.messages), progress.messages
    assert any("search" in m.lower() for m in progress.messages), progress.messages
