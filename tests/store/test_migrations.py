"""Versioned migrations: files of the layouts released before migrations existed still open, with
their rows; each version applies once (also with replicas starting together); `outrider migrate`
applies them ahead of a rollout."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from contextlib import closing
from pathlib import Path

import psycopg

from outrider.server.core.storage.migrations import postgres as pg_migrations
from outrider.server.core.storage.migrations import sqlite as sqlite_migrations
from outrider.server.core.storage.postgres.connection import apply_migrations
from outrider.server.core.storage.postgres.store import PostgresStore
from outrider.server.core.storage.sqlite.store import SqliteStore
from outrider.v1 import run_pb2

# every version each backend defines (helpers working in parallel leave gaps until merged)
ALL_VERSIONS = sorted(m.version for m in sqlite_migrations.MIGRATIONS)
PG_VERSIONS = sorted(m.version for m in pg_migrations.MIGRATIONS)
CLI = [sys.executable, "-m", "outrider.cli.main"]

# The schema of the first release, as it created its file (no tenants, no schema_migrations).
FIRST_RELEASE_SCHEMA = """
CREATE TABLE runs (
  id TEXT PRIMARY KEY, kind INTEGER NOT NULL, state INTEGER NOT NULL,
  create_us INTEGER NOT NULL, body BLOB NOT NULL);
CREATE INDEX runs_by_time ON runs (create_us DESC, id DESC);
CREATE INDEX runs_by_state ON runs (state);
CREATE TABLE events (
  run_id TEXT NOT NULL, sequence INTEGER NOT NULL, body BLOB NOT NULL,
  PRIMARY KEY (run_id, sequence)) WITHOUT ROWID;
CREATE TABLE interactions (
  id TEXT PRIMARY KEY, run_id TEXT NOT NULL, state INTEGER NOT NULL,
  create_us INTEGER NOT NULL, body BLOB NOT NULL);
CREATE INDEX interactions_by_time ON interactions (create_us, id);
CREATE INDEX interactions_by_run ON interactions (run_id);
CREATE TABLE artifacts (
  run_id TEXT NOT NULL, id TEXT NOT NULL, content_type TEXT NOT NULL, size INTEGER NOT NULL,
  PRIMARY KEY (run_id, id)) WITHOUT ROWID;
"""
# What the release with tenants added in place to such files (still no schema_migrations).
TENANT_RELEASE_ADDITIONS = """
ALTER TABLE runs ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
CREATE INDEX runs_by_tenant ON runs (tenant, create_us DESC, id DESC);
"""


def old_file(path: Path, schema: str) -> None:
    run = run_pb2.Run(
        name="runs/old", kind=run_pb2.RUN_KIND_AUTOMATE, state=run_pb2.RUN_STATE_SUCCEEDED
    )
    with closing(sqlite3.connect(path)) as db:
        db.executescript(schema)
        db.execute(
            "INSERT INTO runs (id, kind, state, create_us, body) VALUES ('old', 1, 3, 5, ?)",
            (run.SerializeToString(),),
        )
        db.commit()


def versions_in(path: Path) -> list[int]:
    with closing(sqlite3.connect(path)) as db:
        return [row[0] for row in db.execute("SELECT version FROM schema_migrations ORDER BY 1")]


def test_a_first_release_file_gains_tenants_and_keeps_its_runs(tmp_path: Path) -> None:
    path = tmp_path / "outrider.sqlite3"
    old_file(path, FIRST_RELEASE_SCHEMA)
    store = SqliteStore(path)
    try:
        assert store.applied_migrations == ALL_VERSIONS
        run = store.get_run("old", "default")
        assert run is not None and run.name == "runs/old" and run.tenant == "default"
        assert [r.name for r in store.list_runs(5, None, [], 0, "default")] == ["runs/old"]
    finally:
        store.close()
    assert versions_in(path) == ALL_VERSIONS
    reopened = SqliteStore(path)
    reopened.close()
    assert reopened.applied_migrations == []


def test_a_file_that_already_has_tenants_is_only_recorded(tmp_path: Path) -> None:
    path = tmp_path / "outrider.sqlite3"
    old_file(path, FIRST_RELEASE_SCHEMA + TENANT_RELEASE_ADDITIONS)
    store = SqliteStore(path)
    try:
        assert store.applied_migrations == ALL_VERSIONS
        assert store.get_run("old", "default") is not None
    finally:
        store.close()


def test_replicas_starting_together_apply_each_version_once(postgres_url: str) -> None:
    applied: list[list[int]] = []
    starts = [
        threading.Thread(target=lambda: applied.append(apply_migrations(postgres_url)))
        for _ in range(4)
    ]
    for start in starts:
        start.start()
    for start in starts:
        start.join()
    assert sorted(applied) == [[], [], [], PG_VERSIONS]
    with psycopg.connect(postgres_url) as conn:
        rows = conn.execute("SELECT version FROM schema_migrations ORDER BY 1").fetchall()
    assert [row[0] for row in rows] == PG_VERSIONS
    PostgresStore(postgres_url).close()  # a store opening a migrated database applies nothing


def test_outrider_migrate_applies_ahead_of_a_rollout(postgres_url: str, tmp_path: Path) -> None:
    env = os.environ | {"OUTRIDER_DATABASE_URL": postgres_url, "OUTRIDER_DATA_DIR": str(tmp_path)}
    first = subprocess.run([*CLI, "migrate"], env=env, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    assert f"PostgreSQL: applied migrations {', '.join(map(str, PG_VERSIONS))}" in first.stdout
    again = subprocess.run([*CLI, "migrate"], env=env, capture_output=True, text=True, timeout=60)
    assert "the schema is up to date" in again.stdout
    assert not (tmp_path / "outrider.sqlite3").exists()  # PostgreSQL was migrated, not SQLite
