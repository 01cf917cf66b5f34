"""Research tests: the production research agent on a real server, the fixture web on
127.0.0.1 (allowlisted through the network guard), its corpus index, and fake search APIs."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from outrider.server.search.corpus import CorpusIndex
from outrider.server.search.corpus_cli import index_directory
from outrider.server.settings.research import ResearchSettings
from outrider.v1 import params_pb2, run_event_pb2, run_service_pb2
from outrider.v1 import research_events_pb2 as re_pb
from tests.conftest import HarnessFactory
from tests.research.web import (
    WEB_DIR,
    SearchBehaviour,
    Server,
    fake_search_apis,
    fixture_web,
)
from tests.support.harness import REPO_ROOT, Harness
from tests.support.requests import collect

SCENARIOS = REPO_ROOT / "tests" / "fixtures" / "scenarios"
KEYS = {"brave": "brave-test-key", "tavily": "tvly-test-key"}


def page_titles() -> dict[str, str]:
    """Path of every fixture page -> its <title>."""
    titles = {}
    for path in sorted(WEB_DIR.rglob("*.html")):
        match = re.search(r"<title>(.*?)</title>", path.read_text())
        titles[path.relative_to(WEB_DIR).as_posix()] = match.group(1) if match else path.stem
    return titles


def title_search(base_url: str) -> Callable[[str], list[dict[str, str]]]:
    """What the fake web search APIs answer: fixture pages whose title shares a query word."""
    titles = page_titles()

    def results(query: str) -> list[dict[str, str]]:
        words = {w for w in re.findall(r"\w+", query.lower()) if len(w) > 3}
        scored = [
            (sum(w in (title + path).lower() for w in words), path, title)
            for path, title in titles.items()
        ]
        ranked = sorted((s for s in scored if s[0]), key=lambda s: (-s[0], s[1]))[:8]
        return [
            {"url": f"{base_url}/{path}", "title": title, "snippet": f"About {title.lower()}."}
            for _, path, title in ranked
        ]

    return results


@dataclass
class ResearchCase:
    harness: Harness
    web: Server
    search: Server
    behaviour: SearchBehaviour
    tmp: Path

    async def research(
        self,
        query: str,
        mode: int = re_pb.RESEARCH_MODE_BALANCED,
        options: params_pb2.RunOptions | None = None,
        **params: Any,
    ) -> list[run_event_pb2.RunEvent]:
        request = run_service_pb2.ResearchRequest(
            params=params_pb2.ResearchParams(query=query, mode=mode, **params),  # type: ignore[arg-type]
            options=options,
        )
        return await collect(self.harness.runs.Research(request))


ResearchCaseFactory = Callable[..., Awaitable[ResearchCase]]


def render_scenario(scenario: str | dict[str, Any], web: str, into: Path) -> Path:
    """Writes a scenario (a file under fixtures/scenarios, or a dict) with $WEB replaced."""
    text = (
        (SCENARIOS / scenario).read_text()
        if isinstance(scenario, str)
        else yaml.safe_dump(scenario, sort_keys=False)
    )
    into.parent.mkdir(parents=True, exist_ok=True)
    into.write_text(text.replace("$WEB", web))
    return into


@pytest.fixture
def web() -> Iterator[Server]:
    with fixture_web() as server:
        yield server


@pytest.fixture
def corpus(tmp_path: Path, web: Server) -> Path:
    path = tmp_path / "corpus.sqlite3"
    # Keeps the pages robots.txt disallows, as a web search would find them: the fetch-time
    # robots.txt check must meet them (test_corpus_robots covers the indexer's own check).
    index_directory(CorpusIndex(path), WEB_DIR, web.url, honour_robots=False)
    return path


@pytest.fixture
def search_behaviour(web: Server) -> SearchBehaviour:
    return SearchBehaviour(title_search(web.url), keys=dict(KEYS))


@pytest.fixture
def search_apis(search_behaviour: SearchBehaviour) -> Iterator[Server]:
    with fake_search_apis(search_behaviour) as server:
        yield server


@pytest.fixture
def research_case(
    make_harness: HarnessFactory,
    tmp_path: Path,
    web: Server,
    corpus: Path,
    search_apis: Server,
    search_behaviour: SearchBehaviour,
) -> ResearchCaseFactory:
    """Starts a server with the production agents, its model replaying `scenario`."""
    count = 0

    async def make(
        scenario: str | dict[str, Any],
        providers: tuple[str, ...] = ("corpus", "searxng"),
        settings: dict[str, Any] | None = None,
        **research: Any,
    ) -> ResearchCase:
        nonlocal count
        count += 1
        script = render_scenario(scenario, web.url, tmp_path / f"scenario{count}.yaml")
        options = research_settings(search_apis.url, corpus, providers) | research
        server = {"network_allow": f"127.0.0.1:{web.port}"} | (settings or {})
        harness = await make_harness(
            production=True,
            model=f"scripted:{script}",
            research=ResearchSettings(**options),
            **server,
        )
        return ResearchCase(harness, web, search_apis, search_behaviour, tmp_path)

    return make


def research_settings(apis: str, corpus: Path, providers: tuple[str, ...]) -> dict[str, Any]:
    return {
        "search_providers": providers,
        "corpus_index": corpus,
        "searxng_url": f"{apis}/searxng",
        "brave_url": f"{apis}/brave/res/v1/web/search",
        "brave_api_key": KEYS["brave"],
        "tavily_url": f"{apis}/tavily/search",
        "tavily_api_key": KEYS["tavily"],
        "per_host_delay": 0.0,
        "per_host_concurrency": 8,
        "js_fallback": False,  # the fetch tests cover it; runs stay free of Chromium
    }
