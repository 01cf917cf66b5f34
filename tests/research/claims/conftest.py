"""The ferry notes: a fixture site of its own for the research tests of issue 26 (reports that
state only what their sources say). One page is an ordinary local-history article; the other is
a deals page that writes to the model, forges the fence in escaped and invisible forms, and
puts markup, a link and a fence marker in its title. It overrides the bee site's `web`,
`corpus` and `search_behaviour`; every search finds both pages, the article first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from outrider.server.search.corpus import CorpusIndex
from outrider.server.search.corpus_cli import index_directory
from tests.research.web import SearchBehaviour, Server, fixture_web
from tests.support.harness import REPO_ROOT

CLAIMS_DIR = REPO_ROOT / "tests" / "fixtures" / "claims"
PAGES = ("ferries.html", "cheap-crossings.html")


@pytest.fixture
def web() -> Iterator[Server]:
    with fixture_web(CLAIMS_DIR) as server:
        yield server


@pytest.fixture
def corpus(tmp_path: Path, web: Server) -> Path:
    path = tmp_path / "claims.sqlite3"
    index_directory(CorpusIndex(path), CLAIMS_DIR, web.url)
    return path


@pytest.fixture
def search_behaviour(web: Server) -> SearchBehaviour:
    return SearchBehaviour(
        lambda query: [
            {"url": f"{web.url}/{page}", "title": page, "snippet": "About the bay."}
            for page in PAGES
        ]
    )
