"""Sessions' rows as both backends write and read them: the values of an insert, the filters of a
listing, and decoding (a row that does not decode is skipped and logged, as `rows` does)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from outrider.server.core.storage.contract import StartKey
from outrider.server.core.storage.rows import decoded
from outrider.server.core.storage.session_contract import LIVE_SESSION_STATES, SessionRunRow
from outrider.v1 import session_pb2

SESSION_COLUMNS = "id, tenant, kind, state, create_us, body"
# A new session, and its create's key when it has one (`storage.start_keys` keeps runs' keys
# alike): nothing is inserted when another session holds the key (the unique index).
INSERT_SESSION = (
    f"INSERT INTO sessions ({SESSION_COLUMNS}, owner, created_by, request_id, request_digest) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"
)
UPDATE_SESSION = "UPDATE sessions SET state = %s, body = %s WHERE id = %s"
SESSION_RUN_COLUMNS = "run_id, base, final, end_url, end_title"
ADD_SESSION_RUN = (
    f"INSERT INTO session_runs (session_id, {SESSION_RUN_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (session_id, run_id) DO NOTHING"
)
FINISH_SESSION_RUN = (
    "UPDATE session_runs SET final = %s, end_url = %s, end_title = %s "
    "WHERE session_id = %s AND run_id = %s"
)
SESSION_RUNS = (
    f"SELECT {SESSION_RUN_COLUMNS} FROM session_runs WHERE session_id = %s ORDER BY base, run_id"
)
APPEND_SESSION_EVENT = (
    "INSERT INTO session_events (session_id, sequence, body) VALUES (%s, %s, %s) "
    "ON CONFLICT (session_id, sequence) DO NOTHING"
)
SESSION_EVENTS_AFTER = (
    "SELECT body FROM session_events WHERE session_id = %s AND sequence > %s "
    "ORDER BY sequence LIMIT %s"
)
# Live sessions, as a condition on the `state` column.
LIVE = f"state IN ({', '.join(str(int(state)) for state in LIVE_SESSION_STATES)})"
# A create's key names its session while the session is live or was created since the key's
# window began; an expired key is freed lazily (by the next create with it) or in bulk.
_KEY_HOLDER = "tenant = %s AND created_by = %s AND request_id = %s"
_FORGET_KEY = "UPDATE sessions SET request_id = NULL, request_digest = NULL WHERE "
_ENDED_BEFORE = f"create_us < %s AND NOT {LIVE}"
EXPIRE_SESSION_KEY = f"{_FORGET_KEY}{_KEY_HOLDER} AND {_ENDED_BEFORE}"
FIND_SESSION_KEY = (
    f"SELECT id, request_digest FROM sessions WHERE {_KEY_HOLDER} AND (create_us >= %s OR {LIVE})"
)
FORGET_EXPIRED_SESSION_KEYS = f"{_FORGET_KEY}request_id IS NOT NULL AND {_ENDED_BEFORE}"
# Retention: ended sessions created before a time, oldest first, go with their runs' places and
# their own events (their runs are purged by the runs' retention, each on its own age).
ENDED_SESSIONS_BEFORE = f"SELECT id FROM sessions WHERE {_ENDED_BEFORE} ORDER BY create_us LIMIT %s"
PURGE_SESSION = (
    "DELETE FROM session_events WHERE session_id = %s",
    "DELETE FROM session_runs WHERE session_id = %s",
    "DELETE FROM sessions WHERE id = %s",
)


def insert_session_values(
    session: session_pb2.Session, session_id: str, owner: int | None, key: StartKey | None
) -> tuple[Any, ...]:
    """The values of INSERT_SESSION."""
    keyed = (None, None) if key is None else (key.request_id, key.digest)
    return (*session_values(session, session_id), owner, session.created_by, *keyed)


def session_values(session: session_pb2.Session, session_id: str) -> tuple[Any, ...]:
    """A session as the values of SESSION_COLUMNS."""
    create_us = session.create_time.ToMicroseconds()
    body = session.SerializeToString()
    return (session_id, session.tenant, session.kind, session.state, create_us, body)


def session_run_values(session_id: str, row: SessionRunRow) -> tuple[Any, ...]:
    return (session_id, row.run_id, row.base, row.final, row.end_url, row.end_title)


def finish_values(session_id: str, row: SessionRunRow) -> tuple[Any, ...]:
    return (row.final, row.end_url, row.end_title, session_id, row.run_id)


def sessions_from_rows(rows: Iterable[Sequence[Any]]) -> list[session_pb2.Session]:
    """Rows of (id, tenant, body) that decode; the tenant column is the session's tenant."""
    sessions = []
    for session_id, tenant, body in rows:
        session = decoded(session_pb2.Session, bytes(body), f"session {session_id}")
        if session is not None:
            session.tenant = str(tenant)
            sessions.append(session)
    return sessions


def session_runs_from_rows(rows: Iterable[Sequence[Any]]) -> list[SessionRunRow]:
    return [
        SessionRunRow(str(run_id), int(base), None if final is None else int(final), url, title)
        for run_id, base, final, url, title in rows
    ]


def session_events_from_rows(
    session_id: str, rows: Iterable[Sequence[Any]]
) -> list[session_pb2.SessionEvent]:
    events = []
    for (body,) in rows:
        event = decoded(session_pb2.SessionEvent, bytes(body), f"event of session {session_id}")
        if event is not None:
            events.append(event)
    return events


def session_filters(
    before: tuple[int, str] | None, states: Iterable[int], kind: int, tenant: str | None
) -> tuple[str, list[Any]]:
    """The WHERE clause (with %s parameters) of a listing, and its parameters."""
    clauses: list[str] = ["TRUE"]
    params: list[Any] = []
    if before is not None:
        clauses.append("(create_us < %s OR (create_us = %s AND id < %s))")
        params.extend((before[0], before[0], before[1]))
    wanted = list(states)
    if wanted:
        clauses.append(f"state IN ({', '.join(['%s'] * len(wanted))})")
        params.extend(wanted)
    if kind:
        clauses.append("kind = %s")
        params.append(kind)
    if tenant is not None:
        clauses.append("tenant = %s")
        params.append(tenant)
    return " AND ".join(clauses), params
