"""Reads a server's store tables directly (SQLite file or PostgreSQL database), to check what a
test cannot see through the API, such as rows left behind."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from contextlib import closing
from pathlib import Path

import psycopg

from outrider.server.settings import Settings
from outrider.v1 import run_pb2


def stored_run(data_dir: Path, name: str) -> tuple[int, int]:
    """(state, last sequence) of a run in the SQLite file of a server's data directory, read
    beside the server (which may not answer calls then: it is stopping)."""
    with closing(sqlite3.connect(Settings(data_dir=data_dir).database_path)) as db:
        row = db.execute("SELECT body FROM runs WHERE id = ?", (name.removeprefix("runs/"),))
        body = row.fetchone()
    run = run_pb2.Run.FromString(body[0]) if body else run_pb2.Run()
    return run.state, run.last_sequence


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
