"""The corpus CLI builds the FTS5 index from a directory or a URL list, and updates it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from outrider.server.search.corpus import CorpusIndex
from tests.research.web import WEB_DIR, Server
from tests.support.harness import REPO_ROOT


def corpus_cli(*args: str, **env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "outrider.server.search.corpus_cli", *args],
        cwd=REPO_ROOT,
        env=os.environ | env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout + result.stderr


def test_a_directory_is_indexed_then_updated(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(WEB_DIR, docs)
    index = tmp_path / "corpus.sqlite3"
    base = "http://docs.example"
    # the two pages under /private/ are disallowed by the directory's robots.txt
    assert "29 added, 0 updated, 0 unchanged, 0 removed" in corpus_cli(
        str(docs), "--base-url", base, "--index", str(index)
    )
    (docs / "queen.html").write_text("<html><title>Queen</title><p>Marmalade " * 20 + "</p>")
    (docs / "drones.html").unlink()
    (docs / "notes" / "new.md").write_text("# Mead\n\nMead is fermented honey.\n")
    assert "1 added, 1 updated, 27 unchanged, 1 removed" in corpus_cli(
        str(docs), "--base-url", base, "--index", str(index)
    )
    results = CorpusIndex(index).search("marmalade mead", 5)
    assert {r.url for r in results} == {f"{base}/queen.html", f"{base}/notes/new.md"}
    assert CorpusIndex(index).search("drones", 5)[0].url != f"{base}/drones.html"


def test_a_url_list_is_fetched_through_the_guard_and_robots(tmp_path: Path, web: Server) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text(f"# fixture pages\n{web.url}/varroa.html\n{web.url}/private/draft-notes.html\n")
    index = tmp_path / "corpus.sqlite3"
    output = corpus_cli(
        "--urls", str(urls), "--index", str(index),
        OUTRIDER_NETWORK_ALLOW=f"127.0.0.1:{web.port}", OUTRIDER_RESEARCH_PER_HOST_DELAY="0",
    )  # fmt: skip
    assert "1 added" in output and "disallowed by robots.txt" in output
    assert [r.url for r in CorpusIndex(index).search("varroa", 3)] == [f"{web.url}/varroa.html"]
    assert "/private/draft-notes.html" not in web.traffic.paths()
