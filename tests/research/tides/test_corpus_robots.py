"""Issue 11, item 10: the corpus indexer honours a directory's robots.txt as the served site's
(its disallowed directories stay out of the index, and leave it when robots.txt starts to
disallow them), unless told to ignore it."""

from __future__ import annotations

import shutil
from pathlib import Path

from outrider.server.search.corpus import CorpusIndex
from tests.research.test_corpus_cli import corpus_cli
from tests.research.tides.conftest import TIDES_DIR

BASE = "http://almanac.example"
HIDDEN = {f"{BASE}/archive/keepers-1950.html", f"{BASE}/staff-only/rota.html"}


def indexed(index: Path) -> set[str]:
    words = "tides lighthouse keepers letters harbour rota history almanac"
    return {r.url for r in CorpusIndex(index).search(words, 50)}


def test_directories_disallowed_by_robots_txt_are_not_indexed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(TIDES_DIR, site)
    index = tmp_path / "corpus.sqlite3"
    args = (str(site), "--base-url", BASE, "--index", str(index))
    assert "7 added, 0 updated, 0 unchanged, 0 removed" in corpus_cli(*args)
    urls = indexed(index)
    assert len(urls) == 7 and not urls & HIDDEN
    assert f"{BASE}/mirror/tides.html" in urls
    assert CorpusIndex(index).search("relief", 5) == []  # only the archive says it

    (site / "robots.txt").write_text((site / "robots.txt").read_text() + "Disallow: /mirror/\n")
    assert "0 added, 0 updated, 6 unchanged, 1 removed" in corpus_cli(*args)
    assert f"{BASE}/mirror/tides.html" not in indexed(index)


def test_robots_txt_can_be_ignored_for_ones_own_files(tmp_path: Path) -> None:
    index = tmp_path / "corpus.sqlite3"
    output = corpus_cli(
        str(TIDES_DIR), "--base-url", BASE, "--index", str(index), "--ignore-robots"
    )
    assert "9 added" in output
    assert HIDDEN <= indexed(index)
