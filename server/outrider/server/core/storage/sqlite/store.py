"""SQLite persistence of runs, events, interactions, artifacts and browser recipes (the embedded
default; `storage.postgres` is the other backend of the same `storage.contract.Store` contract).
Artifact bytes stay files beside the database (`artifact_files`): one machine owns both.

Every run belongs to a tenant (a column of `runs`); interactions and artifacts belong to their
run's tenant. Reads take an optional `tenant`: given, rows of other tenants do not exist. Rows
that do not decode are handled as `storage.rows` says.

The connection and its grouped writes: `connection`; what one process needs no store for
(presence, relays, shared secrets): `one_process`; artifacts, recipes, sessions and the vault:
`artifacts`, `recipes`, `sessions`, `vault`; the webhook outbox: `webhooks`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from outrider.server.core import clock
from outrider.server.core.storage.contract import (
    ACTIVE_STATES,
    REQUEST_ID_TAKEN,
    ActiveLimits,
    KeyedRun,
    Orphan,
    RunUsage,
    StartKey,
)
from outrider.server.core.storage.rows import (
    RUN_COLUMNS,
    events_from_rows,
    read_run,
    run_values,
    side_effects_from_rows,
)
from outrider.server.core.storage.sqlite.artifacts import SqliteArtifacts
from outrider.server.core.storage.sqlite.interactions import SqliteInteractions
from outrider.server.core.storage.sqlite.one_process import OneProcess
from outrider.server.core.storage.sqlite.recipes import SqliteRecipes
from outrider.server.core.storage.sqlite.sessions import SqliteSessions
from outrider.server.core.storage.sqlite.vault import SqliteVault
from outrider.server.core.storage.sqlite.webhooks import SqliteWebhooks
from outrider.server.core.storage.start_keys import (
    EXPIRE_KEY,
    FIND_KEY,
    FORGET_EXPIRED,
    for_sqlite,
    insert_run,
    insert_values,
    key_values,
)
from outrider.v1 import run_event_pb2, run_pb2

__all__ = ["ACTIVE_STATES", "RunUsage", "SqliteStore"]


class SqliteStore(
    OneProcess,
    SqliteInteractions,
    SqliteArtifacts,
    SqliteRecipes,
    SqliteSessions,
    SqliteVault,
    SqliteWebhooks,
):
    """Runs, their events and interactions in one SQLite file."""

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
        runs = int(self._conn.execute(for_sqlite(FORGET_EXPIRED), (before_us,)).rowcount)
        return runs + self.forget_session_keys(before_us)

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

    def orphans(self) -> list[Orphan]:
        """Runs in an active state; unreadable ones are marked failed here and left out."""
        marks = ",".join("?" * len(ACTIVE_STATES))
        rows = self._conn.execute(
            f"SELECT {RUN_COLUMNS} FROM runs WHERE state IN ({marks}) ORDER BY create_us",
            ACTIVE_STATES,
        ).fetchall()
        runs = [read_run(row, self.save_run) for row in rows]
        return [Orphan(run, 0) for run in runs if run.state in ACTIVE_STATES]

    def count_active(self, tenant: str | None = None) -> int:
        marks = ",".join("?" * len(ACTIVE_STATES))
        sql = f"SELECT count(*) FROM runs WHERE state IN ({marks})"
        if tenant is None:
            return int(self._conn.execute(sql, ACTIVE_STATES).fetchone()[0])
        row = self._conn.execute(sql + " AND tenant = ?", (*ACTIVE_STATES, tenant)).fetchone()
        return int(row[0])

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

    # artifacts

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

    # recipes

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
