"""SQLite persistence of runs, events, interactions, artifacts and browser recipes (the embedded
default; `storage.postgres` is the other backend of the same `storage.base.Store` contract).
Artifact bytes stay files beside the database (`storage.artifact_files`): one machine owns both.

Every run belongs to a tenant (a column of `runs`); interactions and artifacts belong to their
run's tenant. Reads take an optional `tenant`: given, rows of other tenants do not exist. Rows
that do not decode are handled as `storage.rows` says.

One connection, used only from the event loop's thread. Writes are grouped: the first write of a
loop iteration opens a transaction and a callback scheduled with `call_soon` commits it, so a burst
of events costs one commit, and reads on the same connection see every write immediately. Event
rows, the bulk of the writes, wait in a list and go in with one `executemany` when the transaction
commits or before anything reads events, whichever comes first: one statement per burst rather
than one per event. Reads of events commit first, so they only ever return committed events, and
`when_committed` callbacks (the event log's fan-out to live watchers) run right after a commit:
no watcher is sent an event a crash could still take back.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from outrider.server.core import clock
from outrider.server.core.storage.contract import (
    ACTIVE_STATES,
    REQUEST_ID_TAKEN,
    ActiveLimits,
    EventFeed,
    KeyedRun,
    RunUsage,
    StartKey,
    WorkerLoad,
)
from outrider.server.core.storage.migrations import sqlite as migrations
from outrider.server.core.storage.rows import (
    RUN_COLUMNS,
    decoded,
    events_from_rows,
    interaction_values,
    interactions_from_rows,
    read_run,
    run_values,
    side_effects_from_rows,
)
from outrider.server.core.storage.sqlite.artifact_files import ArtifactFiles
from outrider.server.core.storage.sqlite.checkpoints import Checkpointer
from outrider.server.core.storage.start_keys import (
    EXPIRE_KEY,
    FIND_KEY,
    FORGET_EXPIRED,
    for_sqlite,
    insert_run,
    insert_values,
    key_values,
)
from outrider.v1 import interaction_pb2, run_event_pb2, run_pb2

__all__ = ["ACTIVE_STATES", "RunUsage", "SqliteStore"]


class SqliteStore:
    """Runs, their events and interactions in one SQLite file."""

    def __init__(self, path: Path, artifacts_dir: Path | None = None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._files = ArtifactFiles(artifacts_dir or path.parent / "artifacts")
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        # Only takes effect on a new file (before its first table): deleted runs' pages then go
        # back to the file system in `reclaim_space`, not just to SQLite's free list.
        self._conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self.applied_migrations = migrations.migrate(self._conn, clock.now_us())
        # Checkpoints happen in a thread rather than in whichever COMMIT fills the log.
        self._conn.execute("PRAGMA wal_autocheckpoint=0")
        self._checkpoints = Checkpointer(path)
        self._commit_scheduled = False
        self._pending_events: list[tuple[str, int, bytes]] = []
        self._after_commit: list[Callable[[], None]] = []

    def close(self) -> None:
        self.flush()
        self._checkpoints.close()
        self._conn.close()  # the last connection: checkpoints the rest of the log

    def flush(self) -> None:
        """Commits the open transaction, if any."""
        self._commit_scheduled = False
        self._insert_pending_events()
        if self._conn.in_transaction:
            self._conn.execute("COMMIT")
            self._checkpoints.committed()
        callbacks, self._after_commit = self._after_commit, []
        for callback in callbacks:
            callback()

    def when_committed(self, callback: Callable[[], None]) -> None:
        if self._conn.in_transaction:
            self._after_commit.append(callback)
        else:
            callback()

    def commit_marks(self) -> tuple[int, int]:
        return 0, 0  # when_committed callbacks run right after the commit of every prior write

    async def committed(self) -> None:
        self.flush()  # a local commit: no network to wait for

    def _write(self, sql: str, params: Sequence[Any]) -> None:
        self._begin_write()
        self._conn.execute(sql, params)

    def _begin_write(self) -> None:
        """Opens this loop iteration's transaction (if not open yet) and schedules its commit."""
        if not self._conn.in_transaction:
            self._conn.execute("BEGIN")
        self._schedule_commit()

    def _insert_pending_events(self) -> None:
        """Writes the queued event rows into the open transaction (one statement for all)."""
        if not self._pending_events:
            return
        rows, self._pending_events = self._pending_events, []
        self._conn.executemany("INSERT INTO events (run_id, sequence, body) VALUES (?, ?, ?)", rows)

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
            run_values(run, run_id),
        )

    def insert_run_within(
        self, run: run_pb2.Run, run_id: str, limits: ActiveLimits, key: StartKey | None = None
    ) -> str | None:
        # One process owns the file and this runs without an await: nothing can start between.
        refusal = limits.refusal(run.tenant, self.count_active)
        if refusal is not None:
            return refusal
        if key is not None:
            self._write(for_sqlite(EXPIRE_KEY), key_values(key))
        self._begin_write()
        inserted = self._conn.execute(for_sqlite(insert_run()), insert_values(run, run_id, key))
        if inserted.rowcount == 0:
            return REQUEST_ID_TAKEN
        self.flush()
        return None

    async def insert_run(
        self, run: run_pb2.Run, run_id: str, limits: ActiveLimits, key: StartKey | None = None
    ) -> str | None:
        return self.insert_run_within(run, run_id, limits, key)

    async def find_start(self, key: StartKey) -> KeyedRun | None:
        row = self._conn.execute(for_sqlite(FIND_KEY), key_values(key)).fetchone()
        return KeyedRun(str(row[0]), str(row[1])) if row else None

    async def run_saved(self, run_id: str) -> bool:
        return self.run_tenant(run_id) is not None

    async def forget_request_ids(self, before_us: int) -> int:
        self._begin_write()
        return int(self._conn.execute(for_sqlite(FORGET_EXPIRED), (before_us,)).rowcount)

    def get_run(self, run_id: str, tenant: str | None = None) -> run_pb2.Run | None:
        row = self._conn.execute(
            f"SELECT {RUN_COLUMNS} FROM runs WHERE id = ? AND (? IS NULL OR tenant = ?)",
            (run_id, tenant, tenant),
        ).fetchone()
        return read_run(row, self.save_run) if row else None

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
            f"SELECT {RUN_COLUMNS} FROM runs {where} ORDER BY create_us DESC, id DESC LIMIT ?",
            [*params, limit],
        ).fetchall()
        return [read_run(row, self.save_run) for row in rows]

    def count_runs(self, states: Iterable[int], kind: int, tenant: str | None = None) -> int:
        clauses, params = _run_filters(None, list(states), kind)
        if tenant is not None:
            clauses.append("tenant = ?")
            params.append(tenant)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        return int(self._conn.execute(f"SELECT count(*) FROM runs {where}", params).fetchone()[0])

    def active_runs(self) -> list[run_pb2.Run]:
        """Runs in an active state; unreadable ones are marked failed here and left out."""
        marks = ",".join("?" * len(ACTIVE_STATES))
        rows = self._conn.execute(
            f"SELECT {RUN_COLUMNS} FROM runs WHERE state IN ({marks}) ORDER BY create_us",
            ACTIVE_STATES,
        ).fetchall()
        runs = [read_run(row, self.save_run) for row in rows]
        return [run for run in runs if run.state in ACTIVE_STATES]

    def count_active(self, tenant: str | None = None) -> int:
        marks = ",".join("?" * len(ACTIVE_STATES))
        sql = f"SELECT count(*) FROM runs WHERE state IN ({marks})"
        if tenant is None:
            return int(self._conn.execute(sql, ACTIVE_STATES).fetchone()[0])
        row = self._conn.execute(sql + " AND tenant = ?", (*ACTIVE_STATES, tenant)).fetchone()
        return int(row[0])

    def claim_orphan(self, run_id: str) -> int | None:
        return 1  # one process owns the file: every run it finds active is its own to close

    def taken_over(self, run_ids: Iterable[str]) -> list[str]:
        return []

    def fenced_out(self, run_id: str) -> bool:
        return False

    def worker_loads(self) -> list[WorkerLoad]:
        return []  # one process owns the file

    def keep_presence(self) -> bool:
        return False  # no other process could think this one gone

    def presence_epoch(self) -> int:
        return 0

    def unreachable_for(self) -> float:
        return 0.0  # a local file

    def announce(self, address: str, role: str, capacity: int = 0) -> None:
        pass  # one process owns the file: nobody relays calls to it

    def pick_worker(self) -> str | None:
        return None

    def shared_secret(self, name: str) -> str | None:
        return None  # one process owns the file: the data directory's key file is its key

    def executor_address(self, run_id: str) -> str | None:
        return None

    # events

    def append_event(self, run_id: str, event: run_event_pb2.RunEvent) -> None:
        """Queues the event's row in this loop iteration's transaction (see the module doc)."""
        self._begin_write()
        self._pending_events.append((run_id, event.sequence, event.SerializeToString()))

    def events_after(self, run_id: str, after: int, limit: int) -> list[run_event_pb2.RunEvent]:
        self.flush()  # only committed events are read
        rows = self._conn.execute(
            "SELECT sequence, body FROM events WHERE run_id = ? AND sequence > ? "
            "ORDER BY sequence LIMIT ?",
            (run_id, after, limit),
        )
        return events_from_rows(run_id, rows)

    def last_events(self, run_id: str, count: int) -> list[run_event_pb2.RunEvent]:
        self.flush()  # only committed events are read
        rows = self._conn.execute(
            "SELECT sequence, body FROM events WHERE run_id = ? ORDER BY sequence DESC LIMIT ?",
            (run_id, count),
        ).fetchall()
        return events_from_rows(run_id, reversed(rows))

    # checkpoints

    def save_checkpoint(self, run_id: str, part: str, body: str) -> None:
        self._write(
            "INSERT INTO checkpoints (run_id, part, body, saved_us) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (run_id, part) DO UPDATE SET body = excluded.body, "
            "saved_us = excluded.saved_us",
            (run_id, part, body, clock.now_us()),
        )

    def load_checkpoint(self, run_id: str) -> dict[str, str]:
        rows = self._conn.execute(
            "SELECT part, body FROM checkpoints WHERE run_id = ?", (run_id,)
        ).fetchall()
        return {str(part): str(body) for part, body in rows}

    def delete_checkpoint(self, run_id: str) -> None:
        self._write("DELETE FROM checkpoints WHERE run_id = ?", (run_id,))

    # side-effect journal

    def record_side_effect(self, run_id: str, effect: run_event_pb2.SideEffect) -> None:
        self._write(
            "INSERT INTO side_effects (run_id, number, body, recorded_us) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (run_id, number) DO NOTHING",
            (run_id, effect.number, effect.SerializeToString(), clock.now_us()),
        )

    def side_effects(self, run_id: str) -> list[run_event_pb2.SideEffect]:
        rows = self._conn.execute(
            "SELECT body FROM side_effects WHERE run_id = ? ORDER BY number", (run_id,)
        ).fetchall()
        return side_effects_from_rows(rows)

    # interactions

    def save_interaction(
        self, interaction: interaction_pb2.Interaction, ids: tuple[str, str]
    ) -> None:
        self._write(
            "INSERT INTO interactions (id, run_id, state, create_us, body) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET state = excluded.state, body = excluded.body",
            interaction_values(interaction, ids),
        )

    def get_interaction(
        self, interaction_id: str, tenant: str | None = None
    ) -> interaction_pb2.Interaction | None:
        row = self._conn.execute(
            "SELECT i.body FROM interactions i JOIN runs r ON r.id = i.run_id "
            "WHERE i.id = ? AND (? IS NULL OR r.tenant = ?)",
            (interaction_id, tenant, tenant),
        ).fetchone()
        return decoded(interaction_pb2.Interaction, row[0], interaction_id) if row else None

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
        return interactions_from_rows(rows)

    # artifacts

    def save_artifact(self, ids: tuple[str, str], content_type: str, data: bytes) -> None:
        """The file first, then its row: a row always has its bytes."""
        self._files.write(*ids, data)
        self._write(
            "INSERT INTO artifacts (run_id, id, content_type, size) VALUES (?, ?, ?, ?)",
            (*ids, content_type, len(data)),
        )

    def read_artifact(self, ids: tuple[str, str], offset: int, size: int) -> bytes:
        return self._files.read(*ids, offset, size)  # the file only: safe off the loop's thread

    def forget_artifacts(self, run_id: str) -> None:
        self._files.remove_run(run_id)

    def leftover_artifacts(self) -> list[str]:
        found = self._files.run_ids()
        kept: set[str] = set()
        for start in range(0, len(found), 500):  # within SQLite's limit of bound values
            batch = found[start : start + 500]
            marks = ",".join("?" * len(batch))
            rows = self._conn.execute(f"SELECT id FROM runs WHERE id IN ({marks})", batch)
            kept.update(row[0] for row in rows)
        return [run_id for run_id in found if run_id not in kept]

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

    def delete_run(self, run_id: str) -> int | None:
        """Deletes a run's rows (checkpoint included) in one transaction; its artifact files go with
        `forget_artifacts` (in a thread: a slow disk must not stall the loop)."""
        self.flush()
        with self._conn:  # one transaction: all of the run goes, or none of it
            self._conn.execute("BEGIN")
            weight = self._conn.execute(
                "SELECT COALESCE(SUM(size), 0) FROM artifacts WHERE run_id = ?", (run_id,)
            ).fetchone()[0]
            for table in ("events", "interactions", "artifacts", "checkpoints", "side_effects"):
                self._conn.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))
            deleted = self._conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount
        self._checkpoints.committed()
        return int(weight) if deleted else None

    def event_feed(self) -> EventFeed | None:
        return None  # one process owns the file: its runs' events are all local

    # recipes

    def active_recipe(self, key: str) -> str | None:
        row = self._conn.execute(
            "SELECT body FROM recipes WHERE key = ? AND retired = 0", (key,)
        ).fetchone()
        return str(row[0]) if row else None

    def keep_recipe(self, recipe_id: str, key: str, body: str) -> bool:
        self._begin_write()
        inserted = self._conn.execute(
            "INSERT OR IGNORE INTO recipes (id, key, body, create_us) VALUES (?, ?, ?, ?)",
            (recipe_id, key, body, clock.now_us()),
        )
        return inserted.rowcount == 1

    def recipe_replayed(self, recipe_id: str) -> None:
        self._write("UPDATE recipes SET replays = replays + 1 WHERE id = ?", (recipe_id,))

    def recipe_failed(self, recipe_id: str, retire_after: int) -> bool:
        """One process and one connection: the update and its read see nobody else's write."""
        self._write(
            "UPDATE recipes SET failures = failures + 1, retired = (failures + 1 >= ?) "
            "WHERE id = ?",
            (retire_after, recipe_id),
        )
        counts = self.recipe_counts(recipe_id)
        return counts is not None and counts[2]

    def recipe_counts(self, recipe_id: str) -> tuple[int, int, bool] | None:
        row = self._conn.execute(
            "SELECT replays, failures, retired FROM recipes WHERE id = ?", (recipe_id,)
        ).fetchone()
        return (int(row[0]), int(row[1]), bool(row[2])) if row else None

    def reclaim_space(self) -> None:
        """Returns free pages to the file system (a no-op on files made before auto_vacuum)."""
        self.flush()
        self._conn.execute("PRAGMA incremental_vacuum").fetchall()  # one step per page
        self._checkpoints.committed()  # the file shrinks once the freed pages are checkpointed


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
