"""Sessions in PostgreSQL (see `session_contract`), shared by replicas. A session is owned, like a
run, by the presence key of the replica executing it: its writes are conditional on still owning
it, so a replica that was taken for dead and comes back cannot overwrite the session's end. New
sessions are inserted in a transaction of their own, counted against the tenant's limit under an
advisory lock every replica takes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

import psycopg

from outrider.server.core.errors import Unavailable
from outrider.server.core.storage.contract import REQUEST_ID_TAKEN, StartKey
from outrider.server.core.storage.postgres.connection import PostgresConnection
from outrider.server.core.storage.postgres.presence import unowned
from outrider.server.core.storage.postgres.writes import Write
from outrider.server.core.storage.session_contract import (
    TENANT_SESSIONS_FULL,
    KeyedSession,
    SessionRunRow,
)
from outrider.server.core.storage.session_rows import (
    ADD_SESSION_RUN,
    APPEND_SESSION_EVENT,
    ENDED_SESSIONS_BEFORE,
    EXPIRE_SESSION_KEY,
    FIND_SESSION_KEY,
    FINISH_SESSION_RUN,
    INSERT_SESSION,
    LIVE,
    PURGE_SESSION,
    SESSION_EVENTS_AFTER,
    SESSION_RUNS,
    UPDATE_SESSION,
    finish_values,
    insert_session_values,
    session_events_from_rows,
    session_filters,
    session_run_values,
    session_runs_from_rows,
    sessions_from_rows,
)
from outrider.server.core.storage.start_keys import key_values
from outrider.v1 import session_pb2

# The transaction-level advisory lock new sessions take while they count a tenant's live ones
# (a one-part key, apart from the starts' lock and the two-part presence locks).
_SESSIONS_LOCK = 0x6F757472_73657373
_OWNED = "EXISTS (SELECT 1 FROM sessions WHERE id = %s AND owner = %s)"
_ORPHANED = unowned("s.owner")


class PostgresSessions(PostgresConnection):
    async def insert_session(
        self,
        session: session_pb2.Session,
        session_id: str,
        tenant_limit: int,
        key: StartKey | None = None,
    ) -> str | None:
        values = insert_session_values(session, session_id, self._presence.key, key)
        return await asyncio.to_thread(
            self._insert_session, values, session.tenant, tenant_limit, key
        )

    def _insert_session(
        self, values: tuple[Any, ...], tenant: str, limit: int, key: StartKey | None
    ) -> str | None:
        try:
            with self._pool.connection() as conn, conn.transaction():
                if limit:
                    conn.execute("SET LOCAL lock_timeout = '5s'")
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SESSIONS_LOCK,))
                    row = conn.execute(
                        f"SELECT count(*) FROM sessions WHERE {LIVE} AND tenant = %s", (tenant,)
                    ).fetchone()
                    if row is not None and int(row[0]) >= limit:
                        return TENANT_SESSIONS_FULL
                if key is not None:
                    conn.execute(EXPIRE_SESSION_KEY, key_values(key))
                if conn.execute(f"{INSERT_SESSION} RETURNING 1", values).fetchone() is None:
                    return REQUEST_ID_TAKEN
        except psycopg.Error as error:
            raise Unavailable(
                f"PostgreSQL did not save the session: {error}", reason="STORE_UNAVAILABLE"
            ) from error
        return None

    async def find_session_start(self, key: StartKey) -> KeyedSession | None:
        rows = await asyncio.to_thread(self._rows, FIND_SESSION_KEY, key_values(key), barrier=False)
        return KeyedSession(str(rows[0][0]), str(rows[0][1])) if rows else None

    async def purge_ended_sessions(self, before_us: int, limit: int) -> int:
        return await asyncio.to_thread(self._purge_ended_sessions, before_us, limit)

    def _purge_ended_sessions(self, before_us: int, limit: int) -> int:
        try:
            with self._pool.connection() as conn, conn.transaction():
                rows = conn.execute(ENDED_SESSIONS_BEFORE, (before_us, limit)).fetchall()
                ids = [(str(row[0]),) for row in rows]
                for statement in PURGE_SESSION:
                    conn.cursor().executemany(statement, ids)
        except psycopg.Error as error:
            raise Unavailable(f"PostgreSQL: {error}", reason="STORE_UNAVAILABLE") from error
        return len(ids)

    def save_session(self, session: session_pb2.Session, session_id: str) -> None:
        values = (session.state, session.SerializeToString(), session_id, self._presence.key)
        self._writer.put(
            Write(
                f"{UPDATE_SESSION} AND owner = %s",
                values,
                # an ended session wakes its watchers in other processes, which then stop
                announces=None if session.end_time.seconds == 0 else (session_id, 0),
            )
        )

    def get_session(self, session_id: str, tenant: str | None = None) -> session_pb2.Session | None:
        rows = self._rows(
            "SELECT id, tenant, body FROM sessions WHERE id = %s "
            "AND (%s::text IS NULL OR tenant = %s)",
            (session_id, tenant, tenant),
        )
        found = sessions_from_rows(rows)
        return found[0] if found else None

    def list_sessions(
        self,
        limit: int,
        before: tuple[int, str] | None,
        states: Iterable[int],
        kind: int,
        tenant: str | None = None,
    ) -> list[session_pb2.Session]:
        where, params = session_filters(before, states, kind, tenant)
        rows = self._rows(
            f"SELECT id, tenant, body FROM sessions WHERE {where} "
            "ORDER BY create_us DESC, id DESC LIMIT %s",
            (*params, limit),
        )
        return sessions_from_rows(rows)

    def count_live_sessions(self, tenant: str | None = None) -> int:
        rows = self._rows(
            f"SELECT count(*) FROM sessions WHERE {LIVE} AND (%s::text IS NULL OR tenant = %s)",
            (tenant, tenant),
        )
        return int(rows[0][0])

    def add_session_run(self, session_id: str, row: SessionRunRow) -> None:
        self._owned_write(ADD_SESSION_RUN, session_run_values(session_id, row), session_id)

    def finish_session_run(self, session_id: str, row: SessionRunRow) -> None:
        statement = f"{FINISH_SESSION_RUN} AND {_OWNED}"
        self._writer.put(
            Write(
                statement,
                (*finish_values(session_id, row), session_id, self._presence.key),
                announces=(session_id, 0),
            )
        )

    def session_runs(self, session_id: str) -> list[SessionRunRow]:
        return session_runs_from_rows(self._rows(SESSION_RUNS, (session_id,)))

    def append_session_event(self, session_id: str, event: session_pb2.SessionEvent) -> None:
        values = (session_id, event.sequence, event.SerializeToString())
        self._owned_write(APPEND_SESSION_EVENT, values, session_id, event.sequence)

    def _owned_write(
        self, insert: str, values: tuple[Any, ...], session_id: str, sequence: int = 0
    ) -> None:
        """An INSERT ... VALUES made conditional on this process owning the session."""
        head, _, rest = insert.partition(" VALUES (")
        placeholders, _, conflict = rest.partition(")")
        statement = f"{head} SELECT {placeholders} WHERE {_OWNED}{conflict}"
        write = Write(
            statement, (*values, session_id, self._presence.key), announces=(session_id, sequence)
        )
        self._writer.put(write)

    def session_events_after(
        self, session_id: str, after: int, limit: int
    ) -> list[session_pb2.SessionEvent]:
        rows = self._rows(SESSION_EVENTS_AFTER, (session_id, after, limit))
        return session_events_from_rows(session_id, rows)

    def orphaned_sessions(self) -> list[session_pb2.Session]:
        rows = self._rows(
            f"SELECT s.id, s.tenant, s.body FROM sessions s WHERE {LIVE} AND {_ORPHANED} "
            "ORDER BY s.create_us",
            (),
        )
        return sessions_from_rows(rows)

    def claim_session(self, session_id: str) -> bool:
        rows = self._rows(
            f"UPDATE sessions s SET owner = %s WHERE id = %s AND {LIVE} AND {_ORPHANED} "
            "RETURNING 1",
            (self._presence.key, session_id),
        )
        return bool(rows)

    def session_executor(self, session_id: str) -> str | None:
        rows = self._rows(
            "SELECT p.address FROM sessions s JOIN replicas p ON p.owner = s.owner "
            f"WHERE s.id = %s AND {LIVE} AND NOT {_ORPHANED}",
            (session_id,),
        )
        return str(rows[0][0]) if rows else None
