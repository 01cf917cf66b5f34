"""A small JSON key-value cache in SQLite with a time to live, for pages and search results.

Each call opens its own short-lived connection: no connection outlives a call, so nothing needs
closing, and runs in one event loop never share a cursor.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_TABLE = re.compile(r"^[a-z_]+$")


class SqliteCache:
    def __init__(self, path: Path, table: str, ttl: float) -> None:
        if not _TABLE.match(table):
            raise ValueError(f"bad cache table name {table!r}")
        self.path = path
        self.table = table
        self.ttl = ttl

    def get(self, key: str) -> Any | None:
        """The value stored under `key`, or None when absent or older than the TTL."""
        if self.ttl <= 0:
            return None
        with self._connect() as db:
            row = db.execute(
                f"SELECT value FROM {self.table} WHERE key = ? AND stored_at >= ?",
                (key, time.time() - self.ttl),
            ).fetchone()
        return json.loads(row[0]) if row else None

    def put(self, key: str, value: Any) -> None:
        with self._connect() as db:
            db.execute(
                f"INSERT OR REPLACE INTO {self.table} (key, value, stored_at) VALUES (?, ?, ?)",
                (key, json.dumps(value), time.time()),
            )

    def prune_expired(self) -> int:
        """Deletes entries older than the TTL (all of them when caching is off); without it the
        cache file would grow for as long as new pages are fetched. Returns how many went."""
        with self._connect() as db:
            cursor = db.execute(
                f"DELETE FROM {self.table} WHERE stored_at < ?", (time.time() - self.ttl,)
            )
        return cursor.rowcount

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=10)
        try:
            db.execute(
                f"CREATE TABLE IF NOT EXISTS {self.table} "
                "(key TEXT PRIMARY KEY, value TEXT NOT NULL, stored_at REAL NOT NULL)"
            )
            with db:
                yield db
        finally:
            db.close()
