"""Reads a server's store tables directly (SQLite file or PostgreSQL database), to check what a
test cannot see through the API, such as rows left behind."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import psycopg

from outrider.server.settings import Settings


def count_rows(settings: Settings, table: str, run_id: str) -> int:
    """Rows of `table` that belong to the run."""
    if settings.database_url:
        with psycopg.connect(settings.database_url) as conn:
            row = conn.execute(f"SELECT COUNT(*) FROM {table} WHERE run_id = %s", (run_id,))
            return int(row.fetchone()[0])  # type: ignore[index]
    with closing(sqlite3.connect(settings.database_path)) as db:
        return int(
            db.execute(f"SELECT COUNT(*) FROM {table} WHERE run_id = ?", (run_id,)).fetchone()[0]
        )
