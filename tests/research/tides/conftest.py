"""The tide almanac: a fixture site of its own for the research tests of issue 11 (citations,
following, refusals, near-duplicates). It overrides the bee site's `web`, `corpus` and
`search_behaviour`, so `research_case` runs the production agent against it; runs render the
pages whose text needs JavaScript in the real Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from outrider.server.search.corpus import CorpusIndex
from outrider.server.search.corpus_cli import index_directory
from tests.models.fake_providers import FakeProvider, serve
from tests.research.web import SearchBehaviour, Server, fixture_web
from tests.support.harness import REPO_ROOT

TIDES_DIR = REPO_ROOT / "tests" / "fixtures" / "tides"


def title_of(path: str) -> str:
    """The <title> of a fixture page; a PDF's listing shows its URL, as a corpus without a title
    does."""
    if not path.endswith(".html"):
        return ""
    match = re.search(r"<title>(.*?)</title>", (TIDES_DIR / path).read_text())
    return match.group(1) if match else ""


def results(base: str, *paths: str) -> list[dict[str, str]]:
    """Search results for fixture pages, in this order."""
    listed = []
    for path in paths:
        url = f"{base}/{path}"
        title = title_of(path) or url
        listed.append({"url": url, "title": title, "snippet": f"About {title}."})
    return listed


@pytest.fixture
def web() -> Iterator[Server]:
    with fixture_web(TIDES_DIR) as server:
        yield server


@pytest.fixture
def elsewhere() -> Iterator[Server]:
    """A second local server that is NOT allowlisted: a loopback address to the guard."""
    with fixture_web(TIDES_DIR) as server:
        yield server


@pytest.fixture
def corpus(tmp_path: Path, web: Server) -> Path:
    path = tmp_path / "tides.sqlite3"
    index_directory(CorpusIndex(path), TIDES_DIR, web.url)
    return path


@pytest.fixture
def search_behaviour(web: Server) -> SearchBehaviour:
    """Every query finds the tide article; tests set their own answers."""
    return SearchBehaviour(lambda query: results(web.url, "tides.html"))


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    """An OpenAI-compatible model server: the run's model is scripted at the wire."""
    with serve(FakeProvider()) as provider:
        yield provider
