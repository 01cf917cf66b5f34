"""SQLite persistence of runs, events, interactions and artifact metadata.

A row that does not decode (written by a bug, or damaged on disk) never takes a read down: an
unreadable run is rewritten as a failed run whose outcome says why, an unreadable event or
interaction is skipped; each is logged.

Every run belongs to a tenant (a column of `runs`); interactions and artifacts belong to their
run's tenant. Reads take an optional `tenant`: given, rows of other tenants do not exist.

One connection, used only from the event loop's thread. Writes are grouped: the first write of a
loop iteration opens a transaction and a callback scheduled with `call_soon` commits it, so a burst
of events costs one commit, and reads on the same connection see every write immediately.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from google.protobuf.message import DecodeError

from outrider.server.core.principals import DEFAULT_TENANT
from outrider.v1 import interaction_pb2, run_event_pb2, run_pb2

log = logging.getLogger(__name__)
UNREADABLE_RUN = "RECORD_UNREADABLE"
_RUN_COLUMNS = "id, kind, state, create_us, body, tenant"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY, kind INTEGER NOT NULL, state INTEGER NOT NULL,
  create_us INTEGER NOT NULL, body BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS runs_by_time ON runs (create_us DESC, id DESC);
CREATE INDEX IF NOT EXISTS runs_by_state ON runs (state);
CREATE TABLE IF NOT EXISTS events (
  run_id TEXT NOT NULL, sequence INTEGER NOT NULL, body BLOB NOT NULL,
  PRIMARY KEY (run_id, sequence)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS interactions (
  id TEXT PRIMARY KEY, run_id TEXT NOT NULL, state INTEGER NOT NULL,
  create_us INTEGER NOT NULL, body BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS interactions_by_time ON interactions (create_us, id);
CREATE INDEX IF NOT EXISTS interactions_by_run ON interactions (run_id);
CREATE TABLE IF NOT EXISTS artifacts (
  run_id TEXT NOT NULL, id TEXT NOT NULL, content_type TEXT NOT NULL, size INTEGER NOT NULL,
  PRIMARY KEY (run_id, id)) WITHOUT ROWID;
"""
# Columns added after the first release, as (table, column, definition): added in place to
# databases that predate them, so their rows load with the default.
_ADDED_COLUMNS = (("runs", "tenant", f"TEXT NOT NULL DEFAULT '{DEFAULT_TENANT}'"),)
_TENANT_INDEX = (
    "CREATE INDEX IF NOT EXISTS runs_by_tenant ON runs (tenant, create_us DESC, id DESC)"
)

_M = TypeVar("_M", run_pb2.Run, run_event_pb2.RunEvent, interaction_pb2.Interaction)

ACTIVE_STATES = (
    run_pb2.RUN_STATE_QUEUED,
    run_pb2.RUN_STATE_RUNNING,
    run_pb2.RUN_STATE_INPUT_REQUIRED,
    run_pb2.RUN_STATE_APPROVAL_REQUIRED,
)


class Store:
    """Runs, their events and interactions in one SQLite file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        # Only takes effect on a new file (before its first table): deleted runs' pages then go
        # back to the file system in `reclaim_space`, not just to SQLite's free list.
        self._conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(_SCHEMA)
        self._add_missing_columns()
        self._commit_scheduled = False

    def _add_missing_columns(self) -> None:
        for table, column, definition in _ADDED_COLUMNS:
            present = {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}
            if column not in present:
                self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
        self._conn.execute(_TENANT_INDEX)

    def close(self) -> None:
        self.flush()
        self._conn.close()

    def flush(self) -> None:
        """Commits the open transaction, if any."""
        self._commit_scheduled = False
        if self._conn.in_transaction:
            self._conn.execute("COMMIT")

    def _write(self, sql: str, params: Sequence[Any]) -> None:
        if not self._conn.in_transaction:
            self._conn.execute("BEGIN")
        self._conn.execute(sql, params)
        self._schedule_commit()

    def _schedule_commit(self) -> None:
        if self._commit_scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        self._commit_scheduled = True
        loop.call_soon(self.flush)

    # runs

    def save_run(self, run: run_pb2.Run, run_id: str) -> None:
        """Inserts or updates a run; its tenant (`run.tenant`) is fixed by the first save."""
        self._write(
            "INSERT INTO runs (id, kind, state, create_us, body, tenant) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET state = excluded.state, body = excluded.body",
            (
                run_id,
                run.kind,
                run.state,
                run.create_time.ToMicroseconds(),
                run.SerializeToString(),
                run.tenant or DEFAULT_TENANT,
            ),
        )

    def get_run(self, run_id: str, tenant: str | None = None) -> run_pb2.Run | None:
        row = self._conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ? AND (? IS NULL OR tenant = ?)",
            (run_id, tenant, tenant),
        ).fetchone()
        return self._run(row) if row else None

    def run_tenant(self, run_id: str) -> str | None:
        row = self._conn.execute("SELECT tenant FROM runs WHERE id = ?", (run_id,)).fetchone()
        return str(row[0]) if row else None

    def list_runs(
        self,
        limit: int,
        before: tuple[int, str] | None,
        states: Iterable[int],
        kind: int,
        tenant: str | None = None,
    ) -> list[run_pb2.Run]:
        """Runs newest first, strictly older than the (create_us, id) cursor when given."""
        clauses, params = _run_filters(before, list(states), kind)
        if tenant is not None:
            clauses.append("tenant = ?")
            params.append(tenant)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs {where} ORDER BY create_us DESC, id DESC LIMIT ?",
            [*params, limit],
        ).fetchall()
        return [self._run(row) for row in rows]

    def active_runs(self) -> list[run_pb2.Run]:
        """Runs in an active state; unreadable ones are marked failed here and left out."""
        marks = ",".join("?" * len(ACTIVE_STATES))
        rows = self._conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE state IN ({marks}) ORDER BY create_us",
            ACTIVE_STATES,
        ).fetchall()
        runs = [self._run(row) for row in rows]
        return [run for run in runs if run.state in ACTIVE_STATES]

    def _run(self, row: Sequence[Any]) -> run_pb2.Run:
        """A stored run; rows from before tenants existed get their column's tenant. A body that
        does not decode to this run is replaced, for good, by a failed run saying so."""
        run_id, kind, state, create_us, body, tenant = row
        run = _decoded(run_pb2.Run, body, f"run {run_id}")
        if run is None or run.name != f"runs/{run_id}":
            run = _unreadable_run(run_id, kind, state, create_us)
            run.tenant = tenant
            self.save_run(run, run_id)
        run.tenant = tenant
        return run

    # events

    def append_event(self, run_id: str, event: run_event_pb2.RunEvent) -> None:
        self._write(
            "INSERT INTO events (run_id, sequence, body) VALUES (?, ?, ?)",
            (run_id, event.sequence, event.SerializeToString()),
        )

    def events_after(self, run_id: str, after: int, limit: int) -> list[run_event_pb2.RunEvent]:
        rows = self._conn.execute(
            "SELECT sequence, body FROM events WHERE run_id = ? AND sequence > ? "
            "ORDER BY sequence LIMIT ?",
            (run_id, after, limit),
        )
        return _events(run_id, rows)

    def last_events(self, run_id: str, count: int) -> list[run_event_pb2.RunEvent]:
        rows = self._conn.execute(
            "SELECT sequence, body FROM events WHERE run_id = ? ORDER BY sequence DESC LIMIT ?",
            (run_id, count),
        ).fetchall()
        return _events(run_id, reversed(rows))

    # interactions

    def save_interaction(
        self, interaction: interaction_pb2.Interaction, ids: tuple[str, str]
    ) -> None:
        interaction_id, run_id = ids
        self._write(
            "INSERT INTO interactions (id, run_id, state, create_us, body) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET state = excluded.state, body = excluded.body",
            (
                interaction_id,
                run_id,
                interaction.state,
                interaction.create_time.ToMicroseconds(),
                interaction.SerializeToString(),
            ),
        )

    def get_interaction(
        self, interaction_id: str, tenant: str | None = None
    ) -> interaction_pb2.Interaction | None:
        row = self._conn.execute(
            "SELECT i.body FROM interactions i JOIN runs r ON r.id = i.run_id "
            "WHERE i.id = ? AND (? IS NULL OR r.tenant = ?)",
            (interaction_id, tenant, tenant),
        ).fetchone()
        return _decoded(interaction_pb2.Interaction, row[0], interaction_id) if row else None

    def list_interactions(
        self,
        run_id: str | None,
        states: Sequence[int],
        limit: int,
        after: tuple[int, str] | None,
        tenant: str | None = None,
    ) -> list[interaction_pb2.Interaction]:
        """Interactions oldest first, strictly newer than the (create_us, id) cursor when given."""
        clauses = [f"i.state IN ({','.join('?' * len(states))})"]
        params: list[Any] = list(states)
        if run_id is not None:
            clauses.append("i.run_id = ?")
            params.append(run_id)
        if after is not None:
            clauses.append("(i.create_us, i.id) > (?, ?)")
            params.extend(after)
        if tenant is not None:
            clauses.append("r.tenant = ?")
            params.append(tenant)
        rows = self._conn.execute(
            "SELECT i.id, i.body FROM interactions i JOIN runs r ON r.id = i.run_id "
            f"WHERE {' AND '.join(clauses)} ORDER BY i.create_us, i.id LIMIT ?",
            [*params, limit],
        )
        decoded = (_decoded(interaction_pb2.Interaction, body, key) for key, body in rows)
        return [interaction for interaction in decoded if interaction is not None]

    # artifacts

    def save_artifact(self, ids: tuple[str, str], content_type: str, size: int) -> None:
        self._write(
            "INSERT INTO artifacts (run_id, id, content_type, size) VALUES (?, ?, ?, ?)",
            (*ids, content_type, size),
        )

    def get_artifact(
        self, run_id: str, artifact_id: str, tenant: str | None = None
    ) -> tuple[str, int] | None:
        row = self._conn.execute(
            "SELECT a.content_type, a.size FROM artifacts a JOIN runs r ON r.id = a.run_id "
            "WHERE a.run_id = ? AND a.id = ? AND (? IS NULL OR r.tenant = ?)",
            (run_id, artifact_id, tenant, tenant),
        ).fetchone()
        return (row[0], row[1]) if row else None

    # retention

    def finished_runs_oldest_first(self, limit: int) -> list[RunUsage]:
        """Finished runs, oldest first, with the bytes of their artifacts."""
        marks = ",".join("?" * len(ACTIVE_STATES))
        rows = self._conn.execute(
            "SELECT r.id, r.create_us, (SELECT COALESCE(SUM(a.size), 0) FROM artifacts a "
            f"WHERE a.run_id = r.id) FROM runs r WHERE r.state NOT IN ({marks}) "
            "ORDER BY r.create_us, r.id LIMIT ?",
            [*ACTIVE_STATES, limit],
        )
        return [RunUsage(run_id, create_us, size) for run_id, create_us, size in rows]

    def artifact_bytes(self) -> int:
        """Bytes of every artifact of every run."""
        row = self._conn.execute("SELECT COALESCE(SUM(size), 0) FROM artifacts").fetchone()
        return int(row[0])

    def delete_run(self, run_id: str) -> bool:
        """Deletes a run's row, events, interactions and artifact rows in one transaction (the
        artifact files are the caller's). False when there was no such run."""
        self.flush()
        with self._conn:  # one transaction: all of the run goes, or none of it
            self._conn.execute("BEGIN")
            for table in ("events", "interactions", "artifacts"):
                self._conn.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))
            deleted = self._conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount
        return deleted > 0

    def reclaim_space(self) -> None:
        """Returns free pages to the file system (a no-op on files made before auto_vacuum)."""
        self.flush()
        self._conn.execute("PRAGMA incremental_vacuum").fetchall()  # one step per page


@dataclass(frozen=True)
class RunUsage:
    """A finished run as retention sees it: its age and what its artifacts weigh."""

    run_id: str
    create_us: int
    artifact_bytes: int


def _decoded(kind: type[_M], body: bytes, what: str) -> _M | None:
    """The decoded row, or None (logged) when it does not decode."""
    try:
        return kind.FromString(body)
    except (DecodeError, RecursionError, TypeError) as error:
        log.error("stored %s does not decode, skipped: %s", what, error)
        return None


def _events(run_id: str, rows: Iterable[tuple[int, bytes]]) -> list[run_event_pb2.RunEvent]:
    """The events that decode to what their row says they are; others are skipped."""
    events = []
    for sequence, body in rows:
        event = _decoded(run_event_pb2.RunEvent, body, f"event {sequence} of run {run_id}")
        if event is not None and event.sequence == sequence:
            events.append(event)
        elif event is not None:
            log.error("stored event %d of run %s holds another event, skipped", sequence, run_id)
    return events


def _unreadable_run(run_id: str, kind: int, state: int, create_us: int) -> run_pb2.Run:
    log.error("stored run %s (state %d) does not decode: marked failed", run_id, state)
    run = run_pb2.Run(name=f"runs/{run_id}", state=run_pb2.RUN_STATE_FAILED)
    run.kind = kind  # type: ignore[assignment]
    run.create_time.FromMicroseconds(create_us)
    run.update_time.GetCurrentTime()
    run.end_time.GetCurrentTime()
    run.outcome.error_code = UNREADABLE_RUN
    run.outcome.error_message = "the stored record of this run could not be read back"
    return run


def _run_filters(
    before: tuple[int, str] | None, states: list[int], kind: int
) -> tuple[list[str], list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if before is not None:
        clauses.append("(create_us, id) < (?, ?)")
        params.extend(before)
    if states:
        clauses.append(f"state IN ({','.join('?' * len(states))})")
        params.extend(states)
    if kind:
        clauses.append("kind = ?")
        params.append(kind)
    return clauses, params
