"""PostgreSQL persistence of runs, events, interactions, artifacts (bytes too: `pg_artifacts`) and
browser recipes, for several Outrider processes sharing one database. Same tables and meaning as
the SQLite store.

Writes go through `WriteBehind` (see `base` for why the interface stays synchronous). Reads run
on the calling thread after the read barrier, each a single short round trip on a pooled
connection; one that cannot get an answer in time raises `Unavailable`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from outrider.server.core import clock
from outrider.server.core.errors import Unavailable
from outrider.server.core.storage.contract import (
    ACTIVE_STATES,
    ActiveLimits,
    EventFeed,
    KeyedRun,
    RunUsage,
    StartKey,
    WorkerLoad,
)
from outrider.server.core.storage.migrations import postgres as migrations
from outrider.server.core.storage.postgres.artifacts import (
    SELECT_CHUNKS,
    artifact_writes,
    chunk_range,
    slice_of,
)
from outrider.server.core.storage.postgres.connect import check_url, with_client_options
from outrider.server.core.storage.postgres.events import PgEventFeed
from outrider.server.core.storage.postgres.presence import (
    OWNED,
    OWNED_OR_ORPHANED,
    UNOWNED,
    Presence,
    unowned,
)
from outrider.server.core.storage.postgres.reachability import Reachability
from outrider.server.core.storage.postgres.replay import ReadOnlyServer
from outrider.server.core.storage.postgres.secrets import shared_secret
from outrider.server.core.storage.postgres.starts import (
    COUNT_ACTIVE,
    forget_expired,
    insert_new_run,
)
from outrider.server.core.storage.postgres.writer import Write, WriteBehind
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
from outrider.server.core.storage.start_keys import FIND_KEY, insert_run, insert_values, key_values
from outrider.v1 import interaction_pb2, run_event_pb2, run_pb2

_POOL_SIZE = 4
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
_SAVE_INTERACTION = (
    "INSERT INTO interactions (id, run_id, state, create_us, body) SELECT %s, %s, %s, %s, %s "
    "WHERE {fence} ON CONFLICT (id) DO UPDATE SET state = excluded.state, body = excluded.body "
    "RETURNING 1"
)
_TIMEOUT = 10.0  # seconds a read, a connection or the read barrier may take before Unavailable
# Seconds a read waits for a pooled connection: reads run on the event loop, and while
# PostgreSQL is down no connection comes (the presence keeper then marks it unreachable).
_READ_WAIT = 2.0


def connect_pool(url: str, name: str) -> ConnectionPool[Any]:
    pool: ConnectionPool[Any] = ConnectionPool(
        with_client_options(url),
        min_size=1,
        max_size=_POOL_SIZE,
        timeout=_TIMEOUT,
        kwargs={"autocommit": True, "application_name": name},
        open=False,
    )
    pool.open(wait=True, timeout=_TIMEOUT)
    return pool


def apply_migrations(url: str) -> list[int]:
    """Brings the database's schema up to date; returns the versions it applied."""
    with psycopg.connect(with_client_options(url), autocommit=True) as conn:
        return migrations.migrate(conn, clock.now_us())


class PostgresStore:
    """Runs, their events and interactions in a PostgreSQL database shared by replicas."""

    def __init__(
        self, url: str, artifact_backlog: int = 64 * 1024 * 1024, replay_seconds: float = 10.0
    ) -> None:
        check_url(url)
        self.applied_migrations = apply_migrations(url)
        self._url = url
        self._artifact_backlog = artifact_backlog
        self._presence = Presence(url, _TIMEOUT)
        try:
            self._pool = connect_pool(url, "outrider")
        except BaseException:
            self._presence.close()
            raise
        self._writer = WriteBehind(self._connect_writer, _TIMEOUT, replay_seconds)
        self._feed = PgEventFeed(url)
        self._reach = Reachability()
        self._announced: tuple[str, str, int] | None = None

    def _connect_writer(self) -> psycopg.Connection[Any]:
        """The write-behind thread's own connection (see `pg_writer`)."""
        return psycopg.connect(
            with_client_options(self._url), autocommit=True, application_name="outrider-writer"
        )

    def close(self) -> None:
        self._feed.close()
        self._writer.close()
        self._forget_address()
        self._pool.close()
        self._presence.close()

    def announce(self, address: str, role: str, capacity: int = 0) -> None:
        """Upserts this process's address (rows of processes gone are dropped on the way)."""
        self._writer.put(
            # never replayed: right after a failover nobody has taken their presence back yet
            Write(f"DELETE FROM replicas p WHERE {unowned('p.owner')}", (), replay=None)
        )
        self._announced = (address, role, capacity)
        self._announce_again()

    def _announce_again(self) -> None:
        """Upserts the announced row (again: another process may have dropped it while this
        one's presence lock was briefly gone, e.g. during a database restart)."""
        if self._announced is None:
            return
        address, role, capacity = self._announced
        self._writer.put(
            Write(
                "INSERT INTO replicas (owner, address, role, announced_us, capacity) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (owner) DO UPDATE SET "
                "address = excluded.address, role = excluded.role, "
                "announced_us = excluded.announced_us, capacity = excluded.capacity",
                (self._presence.key, address, role, clock.now_us(), capacity),
            )
        )

    def keep_presence(self) -> bool:
        """Checks this process's presence lock, taking it again if PostgreSQL dropped it (then
        announcing its address again); True when it did. Blocking: call it from a thread."""
        try:
            retaken = self._presence.ensure()
            if self._reach.unreachable_for():
                self._renew_pool()
        except psycopg.Error as error:
            self._reach.missed(str(error).strip() or type(error).__name__)
            raise Unavailable(f"PostgreSQL: {error}", reason="STORE_UNAVAILABLE") from error
        self._reach.reached()
        if retaken:
            self._announce_again()
        return retaken

    def _renew_pool(self) -> None:
        """PostgreSQL is back after an outage: reads move to a pool of fresh connections at
        once (the writer reconnects on its own, see `pg_writer`). The old pool would hand out
        none until its reconnection attempts, spaced further apart the longer the outage was,
        came round (seconds, on the event loop); what still uses it fails once and is tried
        again on the new one."""
        old, self._pool = self._pool, connect_pool(self._url, "outrider")
        old.close(timeout=0)

    def presence_epoch(self) -> int:
        return self._presence.retaken

    def unreachable_for(self) -> float:
        return self._reach.unreachable_for()

    def pick_worker(self) -> str | None:
        rows = self._rows(
            "SELECT p.address FROM replicas p LEFT JOIN runs r "
            "ON r.owner = p.owner AND r.state = ANY(%s) "
            f"WHERE p.role <> 'api' AND NOT {unowned('p.owner')} "
            "GROUP BY p.owner, p.address ORDER BY count(r.id), random() LIMIT 1",
            (list(ACTIVE_STATES),),
        )
        return str(rows[0][0]) if rows else None

    def worker_loads(self) -> list[WorkerLoad]:
        rows = self._rows(
            "SELECT p.owner, p.capacity, count(r.id) FROM replicas p LEFT JOIN runs r "
            "ON r.owner = p.owner AND r.state = ANY(%s) "
            f"WHERE p.role <> 'api' AND NOT {unowned('p.owner')} "
            "GROUP BY p.owner, p.capacity ORDER BY p.owner",
            (list(ACTIVE_STATES),),
        )
        key = self._presence.key
        return [WorkerLoad(owner == key, int(active), int(room)) for owner, room, active in rows]

    def shared_secret(self, name: str) -> str | None:
        return shared_secret(self._rows, name)

    def executor_address(self, run_id: str) -> str | None:
        rows = self._rows(
            "SELECT p.address FROM runs r JOIN replicas p ON p.owner = r.owner "
            f"WHERE r.id = %s AND r.state = ANY(%s) AND NOT {UNOWNED}",
            (run_id, list(ACTIVE_STATES)),
        )
        return str(rows[0][0]) if rows else None

    def _forget_address(self) -> None:
        try:
            with self._pool.connection(timeout=2.0) as conn:
                conn.execute("DELETE FROM replicas WHERE owner = %s", (self._presence.key,))
        except (psycopg.Error, OSError):
            pass  # the row goes with the next replica's announce

    def event_feed(self) -> EventFeed | None:
        return self._feed

    def flush(self) -> None:
        self._writer.wait()

    def when_committed(self, callback: Callable[[], None]) -> None:
        self._writer.after_commit(callback)

    def commit_marks(self) -> tuple[int, int]:
        return self._writer.marks

    async def committed(self) -> None:
        await asyncio.to_thread(self._writer.wait)

    def _rows(
        self, sql: str, params: Sequence[Any], binary: bool = False, barrier: bool = True
    ) -> list[tuple[Any, ...]]:
        """The rows of one read, after this process's queued writes (unless `barrier` is off:
        for rows never written behind). A pooled connection PostgreSQL has dropped (a restart,
        a failover, an idle timeout) fails once and leaves the pool: the read is tried again on
        another, until every pooled connection may have been a dropped one (after a restart
        all are), then it gives up with Unavailable."""
        down = self._reach.unreachable_for()
        if down:  # the presence keeper will say when it is back: do not stall the loop meanwhile
            raise Unavailable(
                f"PostgreSQL has been unreachable for {down:.1f} s", reason="STORE_UNAVAILABLE"
            )
        if barrier:
            self._writer.wait(give_up=lambda: bool(self._reach.unreachable_for()))
        for attempt in range(_POOL_SIZE + 1):
            try:
                return self._read(sql, params, binary)
            except psycopg.OperationalError as error:  # that connection has left the pool
                if attempt == _POOL_SIZE or self._reach.unreachable_for():
                    raise Unavailable(f"PostgreSQL: {error}", reason="STORE_UNAVAILABLE") from error
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _read(self, sql: str, params: Sequence[Any], binary: bool) -> list[tuple[Any, ...]]:
        with self._pool.connection(timeout=_READ_WAIT) as conn:
            try:
                rows: list[tuple[Any, ...]] = conn.execute(sql, params, binary=binary).fetchall()
            except psycopg.errors.ReadOnlySqlTransaction as error:  # a standby: drop it
                conn.close()
                raise ReadOnlyServer(f"PostgreSQL refused a write: {error}") from error
            return rows

    # runs

    def save_run(self, run: run_pb2.Run, run_id: str) -> None:
        """Inserts or updates a run; its tenant (`run.tenant`) is fixed by the first save. The
        saving process becomes its owner (the process executing it saves it). Fenced: a run
        another live process took over (`claim_orphan`) is no longer updated by this one."""
        self._writer.put(
            Write(
                f"{_SAVE_RUN} WHERE r.owner = excluded.owner OR {UNOWNED}",
                (*run_values(run, run_id), self._presence.key),
                # An ended run wakes its watchers in other processes, which then stop.
                announces=None if run.state in ACTIVE_STATES else (run_id, run.last_sequence),
                # Sent again after a failover only while this process still owns the run (a
                # replica that has not taken its presence back yet looks dead meanwhile).
                replay=f"{_SAVE_RUN} WHERE r.owner = excluded.owner",
                run_id=run_id,
            )
        )

    def insert_run_within(
        self, run: run_pb2.Run, run_id: str, limits: ActiveLimits, key: StartKey | None = None
    ) -> str | None:
        """In a transaction of its own (`pg_starts`), committed before it returns: the next
        start anywhere counts this run and sees its key. The rows this process wrote behind
        first (its ended runs) are committed before the count."""
        if limits.cluster or limits.tenant:
            self._writer.wait()
        values = (*insert_values(run, run_id, key), self._presence.key)
        refusal = insert_new_run(self._pool, run, (run_id, self._presence.key), limits, key)
        if refusal is None:  # a failover's replay inserts it again where it is missing
            self._writer.committed_directly([Write(insert_run("owner"), values, run_id=run_id)])
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

    def active_runs(self) -> list[run_pb2.Run]:
        """Active runs no live process owns: those of replicas that died or were stopped. Refused
        while this process's own presence lock is gone (the presence keeper takes it back)."""
        if not self._presence.held:
            raise Unavailable(
                "this replica's presence lock is gone until PostgreSQL is reached again",
                reason="STORE_UNAVAILABLE",
            )
        self._announce_again()
        rows = self._rows(
            f"SELECT {RUN_COLUMNS} FROM runs r WHERE state = ANY(%s) AND {UNOWNED} "
            "ORDER BY create_us",
            (list(ACTIVE_STATES),),
        )
        runs = [read_run(row, self.save_run) for row in rows]
        return [run for run in runs if run.state in ACTIVE_STATES]  # unreadable ones failed

    def count_active(self, tenant: str | None = None) -> int:
        rows = self._rows(COUNT_ACTIVE, (list(ACTIVE_STATES), tenant, tenant))
        return int(rows[0][0])

    def claim_orphan(self, run_id: str) -> int | None:
        """One UPDATE: PostgreSQL's row lock makes a second claimant re-check the condition
        after the first commits, when the run is owned by a live process again."""
        claimed = self._rows(
            "UPDATE runs r SET owner = %s, takeovers = takeovers + 1 "
            f"WHERE id = %s AND state = ANY(%s) AND {UNOWNED} RETURNING takeovers",
            (self._presence.key, run_id, list(ACTIVE_STATES)),
        )
        if not claimed:
            return None
        self._writer.owned_again(run_id)
        return int(claimed[0][0])

    def fenced_out(self, run_id: str) -> bool:
        return self._writer.fenced_out(run_id)

    def taken_over(self, run_ids: Iterable[str]) -> list[str]:
        wanted = list(run_ids)
        if not wanted:
            return []
        rows = self._rows(
            "SELECT id FROM runs WHERE id = ANY(%s) AND owner IS DISTINCT FROM %s",
            (wanted, self._presence.key),
        )
        return [str(row[0]) for row in rows]

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
                (run_id, event.sequence, event.SerializeToString(), run_id, self._presence.key),
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
                (run_id, part, body, clock.now_us(), run_id, self._presence.key),
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
                (run_id, run_id, self._presence.key),
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
                    run_id,
                    self._presence.key,
                ),
                fenced=run_id,
            )
        )

    def side_effects(self, run_id: str) -> list[run_event_pb2.SideEffect]:
        rows = self._rows(
            "SELECT body FROM side_effects WHERE run_id = %s ORDER BY number", (run_id,)
        )
        return side_effects_from_rows(rows)

    # interactions

    def save_interaction(
        self, interaction: interaction_pb2.Interaction, ids: tuple[str, str]
    ) -> None:
        self._writer.put(
            Write(
                # Fenced like events: a replica that lost the run cannot resolve or reopen
                # the new owner's questions. A dead owner's are anyone's to close (a run that
                # ended just before its process died may have left one pending).
                f"{_SAVE_INTERACTION.format(fence=OWNED_OR_ORPHANED)}",
                (*interaction_values(interaction, ids), ids[1], self._presence.key),
                fenced=ids[1],
                replay=_SAVE_INTERACTION.format(fence=OWNED),  # see save_run
            )
        )

    def get_interaction(
        self, interaction_id: str, tenant: str | None = None
    ) -> interaction_pb2.Interaction | None:
        rows = self._rows(
            "SELECT i.body FROM interactions i JOIN runs r ON r.id = i.run_id "
            "WHERE i.id = %s AND (%s::text IS NULL OR r.tenant = %s)",
            (interaction_id, tenant, tenant),
        )
        return decoded(interaction_pb2.Interaction, rows[0][0], interaction_id) if rows else None

    def list_interactions(
        self,
        run_id: str | None,
        states: Sequence[int],
        limit: int,
        after: tuple[int, str] | None,
        tenant: str | None = None,
    ) -> list[interaction_pb2.Interaction]:
        """Interactions oldest first, strictly newer than the (create_us, id) cursor when given."""
        clauses = ["i.state = ANY(%s)"]
        params: list[Any] = [list(states)]
        if run_id is not None:
            clauses.append("i.run_id = %s")
            params.append(run_id)
        if after is not None:
            clauses.append("(i.create_us, i.id) > (%s, %s)")
            params.extend(after)
        if tenant is not None:
            clauses.append("r.tenant = %s")
            params.append(tenant)
        rows = self._rows(
            "SELECT i.id, i.body FROM interactions i JOIN runs r ON r.id = i.run_id "
            f"WHERE {' AND '.join(clauses)} ORDER BY i.create_us, i.id LIMIT %s",
            [*params, limit],
        )
        return interactions_from_rows(rows)

    # artifacts

    def save_artifact(self, ids: tuple[str, str], content_type: str, data: bytes) -> None:
        """Queued behind; refused (Unavailable STORE_BACKLOG) while PostgreSQL is so far behind
        that the artifact bytes waiting in memory would pass `artifact_backlog` bytes."""
        if self._writer.backlog_bytes + len(data) > self._artifact_backlog:
            raise Unavailable(
                f"PostgreSQL is behind by {self._writer.backlog_bytes} artifact bytes; "
                "this artifact was not kept",
                reason="STORE_BACKLOG",
            )
        for write in artifact_writes(ids, content_type, data, self._presence.key):
            self._writer.put(write)

    def get_artifact(
        self, run_id: str, artifact_id: str, tenant: str | None = None
    ) -> tuple[str, int] | None:
        rows = self._rows(
            "SELECT a.content_type, a.size FROM artifacts a JOIN runs r ON r.id = a.run_id "
            "WHERE a.run_id = %s AND a.id = %s AND (%s::text IS NULL OR r.tenant = %s)",
            (run_id, artifact_id, tenant, tenant),
        )
        return (str(rows[0][0]), int(rows[0][1])) if rows else None

    def read_artifact(self, ids: tuple[str, str], offset: int, size: int) -> bytes:
        if size <= 0:
            return b""
        # binary: bytea as it is, not as hex text twice its size to encode and parse
        rows = self._rows(SELECT_CHUNKS, (*ids, *chunk_range(offset, size)), binary=True)
        return slice_of(rows, offset, size)

    def forget_artifacts(self, run_id: str) -> None:
        pass  # the bytes went with the run's rows (delete_run)

    def leftover_artifacts(self) -> list[str]:
        return []  # bytes and rows are deleted in one transaction

    # recipes

    def active_recipe(self, key: str) -> str | None:
        rows = self._rows("SELECT body FROM recipes WHERE key = %s AND NOT retired", (key,))
        return str(rows[0][0]) if rows else None

    def keep_recipe(self, recipe_id: str, key: str, body: str) -> bool:
        """At once, not behind the writer: the answer says whether another replica's recipe
        for the key came first (the unique index of active recipes decides)."""
        rows = self._rows(
            "INSERT INTO recipes (id, key, body, create_us) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING RETURNING id",
            (recipe_id, key, body, clock.now_us()),
        )
        return bool(rows)

    def recipe_replayed(self, recipe_id: str) -> None:
        self._writer.put(
            # never replayed: it counts (a replay would count the replay twice)
            Write(
                "UPDATE recipes SET replays = replays + 1 WHERE id = %s", (recipe_id,), replay=None
            )
        )

    def recipe_failed(self, recipe_id: str, retire_after: int) -> bool:
        """One UPDATE: a concurrent one waits for the row lock and then adds to the committed
        count, so failures recorded at once by two replicas are both counted. (A connection
        lost after the commit but before the answer makes `_rows` send it again: one failure
        then counts twice, retiring the recipe early, never replaying a bad one longer.)"""
        rows = self._rows(
            "UPDATE recipes SET failures = failures + 1, "
            "retired = retired OR failures + 1 >= %s WHERE id = %s RETURNING retired",
            (retire_after, recipe_id),
        )
        return bool(rows and rows[0][0])

    def recipe_counts(self, recipe_id: str) -> tuple[int, int, bool] | None:
        rows = self._rows(
            "SELECT replays, failures, retired FROM recipes WHERE id = %s", (recipe_id,)
        )
        return (int(rows[0][0]), int(rows[0][1]), bool(rows[0][2])) if rows else None

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

    def artifact_bytes(self) -> int:
        """Bytes of every artifact of every run."""
        return int(self._rows("SELECT COALESCE(SUM(size), 0) FROM artifacts", ())[0][0])

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
