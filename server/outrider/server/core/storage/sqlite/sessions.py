"""Sessions in the SQLite store (see `session_contract`): one process owns the file, so it
executes every live session in it, and counting then inserting has nobody to race."""

from __future__ import annotations

from collections.abc import Iterable

from outrider.server.core.storage.contract import REQUEST_ID_TAKEN, StartKey
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
    FORGET_EXPIRED_SESSION_KEYS,
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
from outrider.server.core.storage.sqlite.connection import SqliteConnection
from outrider.server.core.storage.start_keys import for_sqlite, key_values
from outrider.v1 import session_pb2


class SqliteSessions(SqliteConnection):
    async def insert_session(
        self,
        session: session_pb2.Session,
        session_id: str,
        tenant_limit: int,
        key: StartKey | None = None,
    ) -> str | None:
        if tenant_limit and self.count_live_sessions(session.tenant) >= tenant_limit:
            return TENANT_SESSIONS_FULL
        if key is not None:
            self._write(for_sqlite(EXPIRE_SESSION_KEY), key_values(key))
        self._begin_write()
        values = insert_session_values(session, session_id, None, key)
        if self._conn.execute(for_sqlite(INSERT_SESSION), values).rowcount == 0:
            return REQUEST_ID_TAKEN
        self.flush()
        return None

    async def find_session_start(self, key: StartKey) -> KeyedSession | None:
        row = self._conn.execute(for_sqlite(FIND_SESSION_KEY), key_values(key)).fetchone()
        return KeyedSession(str(row[0]), str(row[1])) if row else None

    def forget_session_keys(self, before_us: int) -> int:
        """Frees the expired keys of sessions' creates (see `forget_request_ids`)."""
        self._begin_write()
        sql = for_sqlite(FORGET_EXPIRED_SESSION_KEYS)
        return int(self._conn.execute(sql, (before_us,)).rowcount)

    async def purge_ended_sessions(self, before_us: int, limit: int) -> int:
        sql = for_sqlite(ENDED_SESSIONS_BEFORE)
        ids = [(str(row[0]),) for row in self._conn.execute(sql, (before_us, limit)).fetchall()]
        if ids:
            self._begin_write()
            for statement in PURGE_SESSION:
                self._conn.executemany(for_sqlite(statement), ids)
            self.flush()
        return len(ids)

    def save_session(self, session: session_pb2.Session, session_id: str) -> None:
        body = session.SerializeToString()
        self._write(for_sqlite(UPDATE_SESSION), (session.state, body, session_id))

    def get_session(self, session_id: str, tenant: str | None = None) -> session_pb2.Session | None:
        rows = self._conn.execute(
            "SELECT id, tenant, body FROM sessions WHERE id = ? AND (? IS NULL OR tenant = ?)",
            (session_id, tenant, tenant),
        ).fetchall()
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
        rows = self._conn.execute(
            for_sqlite(
                f"SELECT id, tenant, body FROM sessions WHERE {where} "
                "ORDER BY create_us DESC, id DESC LIMIT %s"
            ),
            (*params, limit),
        ).fetchall()
        return sessions_from_rows(rows)

    def count_live_sessions(self, tenant: str | None = None) -> int:
        row = self._conn.execute(
            f"SELECT count(*) FROM sessions WHERE {LIVE} AND (? IS NULL OR tenant = ?)",
            (tenant, tenant),
        ).fetchone()
        return int(row[0])

    def add_session_run(self, session_id: str, row: SessionRunRow) -> None:
        self._write(for_sqlite(ADD_SESSION_RUN), session_run_values(session_id, row))

    def finish_session_run(self, session_id: str, row: SessionRunRow) -> None:
        self._write(for_sqlite(FINISH_SESSION_RUN), finish_values(session_id, row))

    def session_runs(self, session_id: str) -> list[SessionRunRow]:
        rows = self._conn.execute(for_sqlite(SESSION_RUNS), (session_id,)).fetchall()
        return session_runs_from_rows(rows)

    def append_session_event(self, session_id: str, event: session_pb2.SessionEvent) -> None:
        values = (session_id, event.sequence, event.SerializeToString())
        self._write(for_sqlite(APPEND_SESSION_EVENT), values)

    def session_events_after(
        self, session_id: str, after: int, limit: int
    ) -> list[session_pb2.SessionEvent]:
        rows = self._conn.execute(
            for_sqlite(SESSION_EVENTS_AFTER), (session_id, after, limit)
        ).fetchall()
        return session_events_from_rows(session_id, rows)

    def orphaned_sessions(self) -> list[session_pb2.Session]:
        rows = self._conn.execute(
            f"SELECT id, tenant, body FROM sessions WHERE {LIVE} ORDER BY create_us"
        ).fetchall()
        return sessions_from_rows(rows)

    def claim_session(self, session_id: str) -> bool:
        return True  # one process owns the file: every live session it finds is its own to end

    def session_executor(self, session_id: str) -> str | None:
        return None
