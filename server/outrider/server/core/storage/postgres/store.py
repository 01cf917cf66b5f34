"""PostgreSQL persistence of runs, events, interactions, artifacts (bytes too: `chunks`) and
browser recipes, for several Outrider processes sharing one database. Same tables and meaning as
the SQLite store.

Writes go through `WriteBehind` (see `storage.contract` for why the interface stays
synchronous). Reads run on the calling thread after the read barrier, each a single short round
trip on a pooled connection; one that cannot get an answer in time raises `Unavailable`.

The connections: `connection`; what replicas share (presence, addresses, claims): `cluster`;
artifacts, recipes, sessions and the vault: `artifacts`, `recipes`, `sessions`, `vault`; the
webhook outbox: `webhooks`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

import psycopg

from outrider.server.core import clock
from outrider.server.core.errors import StartInDoubt, Unavailable
from outrider.server.core.storage.contract import (
    ACTIVE_STATES,
    ActiveLimits,
    KeyedRun,
    RunUsage,
    StartKey,
)
from outrider.server.core.storage.postgres.artifacts import PostgresArtifacts
from outrider.server.core.storage.postgres.cluster import PostgresCluster
from outrider.server.core.storage.postgres.interactions import PostgresInteractions
from outrider.server.core.storage.postgres.presence import (
    OWNED,
    UNOWNED,
)
from outrider.server.core.storage.postgres.recipes import PostgresRecipes
from outrider.server.core.storage.postgres.sessions import PostgresSessions
from outrider.server.core.storage.postgres.starts import (
    COUNT_ACTIVE,
    forget_expired,
    insert_new_run,
)
from outrider.server.core.storage.postgres.vault import PostgresVault
from outrider.server.core.storage.postgres.webhooks import PostgresWebhooks
from outrider.server.core.storage.postgres.writes import Write
from outrider.server.core.storage.rows import (
    RUN_COLUMNS,
    events_from_rows,
    read_run,
    run_values,
    side_effects_from_rows,
)
from outrider.server.core.storage.start_keys import FIND_KEY, insert_run, insert_values, key_values
from outrider.v1 import run_event_pb2, run_pb2

# The tables holding a run's rows besides `runs` (deleted with it).
_RUN_TABLES = (
    "events",
    "interactions",
    "artifacts",
    "artifact_chunks",
    "checkpoints",
    "side_effects",
)
_SAVE_RUN = (
    "INSERT INTO runs AS r (id, kind, state, create_us, body, tenant, owner) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (id) DO UPDATE SET state = excluded.state, body = excluded.body, "
    "owner = excluded.owner"
)
# The owner saves its run in the generation it knows (none known: its key alone fences).
_SAVED_BY_OWNER = "(r.owner = excluded.owner AND r.takeovers = COALESCE(%s::integer, r.takeovers))"


class PostgresStore(
    PostgresCluster,
    PostgresInteractions,
    PostgresArtifacts,
    PostgresRecipes,
    PostgresSessions,
    PostgresVault,
    PostgresWebhooks,
):
    """Runs, their events and interactions in a PostgreSQL database shared by replicas."""

    # runs

    def save_run(self, run: run_pb2.Run, run_id: str) -> None:
        """Inserts or updates a run; its tenant (`run.tenant`) is fixed by the first save. The
        saving process becomes its owner (the process executing it saves it). Fenced: a run
        another live process took over (`claim_orphan`), or that was claimed again since this
        process's generation of it, is no longer updated by this one. A run whose owner is
        gone may be saved by a process that never owned it (an unreadable record marked failed
        by whoever reads it), never by a former owner: that would take the run back unclaimed."""
        generation = self._generations.get(run_id)
        if run.state not in ACTIVE_STATES:  # its last fenced write: the generation is not needed
            self._generations.pop(run_id, None)
        self._writer.put(
            Write(
                f"{_SAVE_RUN} WHERE {_SAVED_BY_OWNER} OR (%s::integer IS NULL AND {UNOWNED})",
                (*run_values(run, run_id), self._presence.key, generation, generation),
                # An ended run wakes its watchers in other processes, which then stop.
                announces=None if run.state in ACTIVE_STATES else (run_id, run.last_sequence),
                # Sent again after a failover only while this process still owns the run (a
                # replica that has not taken its presence back yet looks dead meanwhile).
                replay=f"{_SAVE_RUN} WHERE {_SAVED_BY_OWNER} OR (%s::integer IS NULL AND FALSE)",
                run_id=run_id,
            )
        )

    def insert_run_within(
        self, run: run_pb2.Run, run_id: str, limits: ActiveLimits, key: StartKey | None = None
    ) -> str | None:
        """In a transaction of its own (`starts`), committed before it returns: the next
        start anywhere counts this run and sees its key. The rows this process wrote behind
        first (its ended runs) are committed before the count. Tried once more on the new pool
        when the presence keeper renewed it meanwhile (PostgreSQL came back: the old pool was
        closed under the start, which had saved nothing)."""
        if limits.cluster or limits.tenant:
            self._writer.wait()
        values = (*insert_values(run, run_id, key), self._presence.key)
        self._generations[run_id] = 0  # a new run's first generation (kept if in doubt)
        for attempt in range(2):
            pool = self._pool
            try:
                refusal = insert_new_run(pool, run, (run_id, self._presence.key), limits, key)
                break
            except Unavailable as error:
                if isinstance(error, StartInDoubt):
                    raise
                if attempt or pool is self._pool:
                    self._generations.pop(run_id, None)
                    raise
        if refusal is None:  # a failover's replay inserts it again where it is missing
            self._writer.committed_directly([Write(insert_run("owner"), values, run_id=run_id)])
        else:
            self._generations.pop(run_id, None)
        return refusal

    async def insert_run(
        self, run: run_pb2.Run, run_id: str, limits: ActiveLimits, key: StartKey | None = None
    ) -> str | None:
        return await asyncio.to_thread(self.insert_run_within, run, run_id, limits, key)

    async def find_start(self, key: StartKey) -> KeyedRun | None:
        rows = await asyncio.to_thread(self._rows, FIND_KEY, key_values(key), barrier=False)
        return KeyedRun(str(rows[0][0]), str(rows[0][1])) if rows else None

    async def run_saved(self, run_id: str) -> bool:
        sql = "SELECT 1 FROM runs WHERE id = %s"
        return bool(await asyncio.to_thread(self._rows, sql, (run_id,), barrier=False))

    async def forget_request_ids(self, before_us: int) -> int:
        return await asyncio.to_thread(forget_expired, self._pool, before_us)

    def get_run(self, run_id: str, tenant: str | None = None) -> run_pb2.Run | None:
        """The run; while another process executes it, its last sequence is that of its newest
        committed event (the row itself is only rewritten when its state changes)."""
        rows = self._rows(
            f"SELECT {RUN_COLUMNS}, (SELECT MAX(sequence) FROM events e WHERE e.run_id = r.id) "
            "FROM runs r WHERE id = %s AND (%s::text IS NULL OR tenant = %s)",
            (run_id, tenant, tenant),
        )
        if not rows:
            return None
        *row, newest = rows[0]
        run = read_run(row, self.save_run)
        run.last_sequence = max(run.last_sequence, newest or 0)
        return run

    def run_tenant(self, run_id: str) -> str | None:
        rows = self._rows("SELECT tenant FROM runs WHERE id = %s", (run_id,))
        return str(rows[0][0]) if rows else None

    def list_runs(
        self,
        limit: int,
        before: tuple[int, str] | None,
        states: Iterable[int],
        kind: int,
        tenant: str | None = None,
    ) -> list[run_pb2.Run]:
        """Runs newest first, strictly older than the (create_us, id) cursor when given."""
        clauses, params = _run_filters(before, states, kind, tenant)
        rows = self._rows(
            f"SELECT {RUN_COLUMNS} FROM runs WHERE {' AND '.join(clauses)} "
            "ORDER BY create_us DESC, id DESC LIMIT %s",
            [*params, limit],
        )
        return [read_run(row, self.save_run) for row in rows]

    def count_runs(self, states: Iterable[int], kind: int, tenant: str | None = None) -> int:
        clauses, params = _run_filters(None, states, kind, tenant)
        return int(
            self._rows(f"SELECT count(*) FROM runs WHERE {' AND '.join(clauses)}", params)[0][0]
        )

    def count_active(self, tenant: str | None = None) -> int:
        rows = self._rows(COUNT_ACTIVE, (list(ACTIVE_STATES), tenant, tenant))
        return int(rows[0][0])

    # events

    def append_event(self, run_id: str, event: run_event_pb2.RunEvent) -> None:
        self._writer.put(
            Write(
                # Fenced: once another live process took the run over, this one's late
                # events (a partition that healed) are not written.
                f"INSERT INTO events (run_id, sequence, body) SELECT %s, %s, %s WHERE {OWNED} "
                # A batch sent again after a lost connection finds its rows: keep them, and
                # return one (only a refusal by the fence returns none).
                "ON CONFLICT (run_id, sequence) DO UPDATE SET body = events.body RETURNING 1",
                (run_id, event.sequence, event.SerializeToString(), *self._fence(run_id)),
                announces=(run_id, event.sequence),
                fenced=run_id,
            )
        )

    def events_after(self, run_id: str, after: int, limit: int) -> list[run_event_pb2.RunEvent]:
        rows = self._rows(
            "SELECT sequence, body FROM events WHERE run_id = %s AND sequence > %s "
            "ORDER BY sequence LIMIT %s",
            (run_id, after, limit),
        )
        return events_from_rows(run_id, rows)

    def last_events(self, run_id: str, count: int) -> list[run_event_pb2.RunEvent]:
        rows = self._rows(
            "SELECT sequence, body FROM events WHERE run_id = %s ORDER BY sequence DESC LIMIT %s",
            (run_id, count),
        )
        return events_from_rows(run_id, reversed(rows))

    # checkpoints

    def save_checkpoint(self, run_id: str, part: str, body: str) -> None:
        self._writer.put(
            Write(
                # Fenced like an event: a replica that lost the run (a partition that healed)
                # cannot replace the new owner's checkpoint with its stale one.
                "INSERT INTO checkpoints (run_id, part, body, saved_us) SELECT %s, %s, %s, %s "
                f"WHERE {OWNED} ON CONFLICT (run_id, part) DO UPDATE SET body = excluded.body, "
                "saved_us = excluded.saved_us",
                (run_id, part, body, clock.now_us(), *self._fence(run_id)),
                run_id=run_id,
            )
        )

    def load_checkpoint(self, run_id: str) -> dict[str, str]:
        rows = self._rows("SELECT part, body FROM checkpoints WHERE run_id = %s", (run_id,))
        return {str(part): str(body) for part, body in rows}

    def delete_checkpoint(self, run_id: str) -> None:
        self._writer.put(
            Write(
                f"DELETE FROM checkpoints WHERE run_id = %s AND {OWNED}",
                (run_id, *self._fence(run_id)),
                run_id=run_id,
            )
        )

    # side-effect journal

    def record_side_effect(self, run_id: str, effect: run_event_pb2.SideEffect) -> None:
        self._writer.put(
            Write(
                # Fenced like events, returning a row when written: a replica that lost the run
                # learns it (`fenced_out`) before it lets the side effect happen.
                "INSERT INTO side_effects (run_id, number, body, recorded_us) "
                f"SELECT %s, %s, %s, %s WHERE {OWNED} "
                "ON CONFLICT (run_id, number) DO UPDATE SET body = side_effects.body RETURNING 1",
                (
                    run_id,
                    effect.number,
                    effect.SerializeToString(),
                    clock.now_us(),
                    *self._fence(run_id),
                ),
                fenced=run_id,
            )
        )

    def side_effects(self, run_id: str) -> list[run_event_pb2.SideEffect]:
        rows = self._rows(
            "SELECT body FROM side_effects WHERE run_id = %s ORDER BY number", (run_id,)
        )
        return side_effects_from_rows(rows)

    # artifacts

    # recipes

    # retention

    def finished_runs_oldest_first(self, limit: int) -> list[RunUsage]:
        """Finished runs, oldest first, with the bytes of their artifacts."""
        rows = self._rows(
            "SELECT r.id, r.create_us, (SELECT COALESCE(SUM(a.size), 0) FROM artifacts a "
            "WHERE a.run_id = r.id) FROM runs r WHERE r.state <> ALL(%s) "
            "ORDER BY r.create_us, r.id LIMIT %s",
            (list(ACTIVE_STATES), limit),
        )
        return [RunUsage(run_id, create_us, int(size)) for run_id, create_us, size in rows]

    def delete_run(self, run_id: str) -> int | None:
        self._writer.wait()
        deletes = [
            *(Write(f"DELETE FROM {table} WHERE run_id = %s", (run_id,)) for table in _RUN_TABLES),
            Write("DELETE FROM runs WHERE id = %s", (run_id,)),
        ]
        try:
            with self._pool.connection() as conn, conn.transaction():
                weight = conn.execute(
                    "SELECT COALESCE(SUM(size), 0) FROM artifacts WHERE run_id = %s", (run_id,)
                ).fetchone()
                for delete in deletes:
                    deleted: int = conn.execute(delete.sql, delete.params).rowcount
        except (psycopg.OperationalError, psycopg.errors.ReadOnlySqlTransaction) as error:
            raise Unavailable(f"PostgreSQL: {error}", reason="STORE_UNAVAILABLE") from error
        self._writer.deleted(run_id, deletes)  # a failover's replay deletes it again
        return int(weight[0]) if deleted and weight is not None else None

    def reclaim_space(self) -> None:
        """Nothing to do: PostgreSQL's autovacuum reuses the space of deleted rows."""


def _run_filters(
    before: tuple[int, str] | None, states: Iterable[int], kind: int, tenant: str | None
) -> tuple[list[str], list[Any]]:
    clauses: list[str] = ["TRUE"]
    params: list[Any] = []
    if before is not None:
        clauses.append("(create_us, id) < (%s, %s)")
        params.extend(before)
    wanted = list(states)
    if wanted:
        clauses.append("state = ANY(%s)")
        params.append(wanted)
    if kind:
        clauses.append("kind = %s")
        params.append(kind)
    if tenant is not None:
        clauses.append("tenant = %s")
        params.append(tenant)
    return clauses, params
