"""The research caches shed expired entries: the cache file stays bounded by what the TTLs keep."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from outrider.server.fetch.cache import SqliteCache
from outrider.v1 import research_events_pb2 as re_pb
from tests.research.conftest import ResearchCaseFactory


def test_prune_expired_deletes_only_entries_past_the_ttl(tmp_path: Path) -> None:
    cache = SqliteCache(tmp_path / "cache.sqlite3", "pages", ttl=60)
    cache.put("fresh", {"n": 1})
    cache.put("stale", {"n": 2})
    with sqlite3.connect(cache.path) as db:
        db.execute("UPDATE pages SET stored_at = ? WHERE key = 'stale'", (time.time() - 61,))
    assert cache.prune_expired() == 1
    assert cache.get("fresh") == {"n": 1}
    with sqlite3.connect(cache.path) as db:
        assert db.execute("SELECT key FROM pages").fetchall() == [("fresh",)]


async def test_a_research_run_prunes_the_expired_cache_entries(
    research_case: ResearchCaseFactory,
) -> None:
    case = await research_case("research_fast.yaml")
    cache_file = case.harness.server.settings.data_dir / "research-cache.sqlite3"
    stale = SqliteCache(cache_file, "pages", ttl=3600)
    stale.put("https://old.example/", {"text": "x" * 1000})
    with sqlite3.connect(cache_file) as db:
        db.execute("UPDATE pages SET stored_at = 0")
    await case.research("Why do honey bee colonies die?", mode=re_pb.RESEARCH_MODE_FAST)
    with sqlite3.connect(cache_file) as db:
        keys = [key for (key,) in db.execute("SELECT key FROM pages")]
    assert "https://old.example/" not in keys and keys  # this run's pages are cached
