"""Reads a server's store tables directly (SQLite file or PostgreSQL database), to check what a
test cannot see through the API, such as rows left behind."""

from __future__ import annotations

import contextlib
import os
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


def artifact_bytes_kept(settings: Settings) -> dict[str, int]:
    """Bytes of artifacts kept now, by run id: SQLite's files under the data dir (a file or
    folder deleted while they are counted holds none), PostgreSQL's chunk rows."""
    if settings.database_url:
        with psycopg.connect(settings.database_url) as conn:
            rows = conn.execute(
                "SELECT run_id, SUM(octet_length(data)) FROM artifact_chunks GROUP BY run_id"
            ).fetchall()
        return {str(run_id): int(size) for run_id, size in rows}
    kept: dict[str, int] = {}
    for folder, _, files in os.walk(settings.artifacts_dir):  # skips folders that vanish
        for name in files:
            with contextlib.suppress(FileNotFoundError):
                size = os.stat(os.path.join(folder, name)).st_size
                run_id = os.path.basename(folder)
                kept[run_id] = kept.get(run_id, 0) + size
    return kept
