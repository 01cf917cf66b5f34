"""The SQL of idempotent starts, shared by both backends (`%s` placeholders; `for_sqlite` turns
them into SQLite's). A run's request id, the principal that sent it and the digest of its
request sit in columns of `runs`, under a unique index per (tenant, principal, request id): the
run and its key are one row, inserted in one statement, so they commit together or not at all.

A key expires once its run was created before the window and has ended: expired ids are set to
NULL, lazily by the next start with the same id, and in bulk by the retention sweep."""

from __future__ import annotations

from typing import Any

from outrider.server.core.storage.contract import ACTIVE_STATES, StartKey
from outrider.server.core.storage.rows import RUN_COLUMNS, run_values
from outrider.v1 import run_pb2

_ACTIVE = ",".join(str(int(state)) for state in ACTIVE_STATES)
_HOLDER = "tenant = %s AND created_by = %s AND request_id = %s"
_FORGET = "UPDATE runs SET request_id = NULL, request_digest = NULL WHERE "
_ENDED_BEFORE = f"create_us < %s AND state NOT IN ({_ACTIVE})"

_INSERTED = f"{RUN_COLUMNS}, created_by, request_id, request_digest"
EXPIRE_KEY = f"{_FORGET}{_HOLDER} AND {_ENDED_BEFORE}"
FIND_KEY = (
    f"SELECT id, request_digest FROM runs WHERE {_HOLDER} "
    f"AND (create_us >= %s OR state IN ({_ACTIVE}))"
)
FORGET_EXPIRED = f"{_FORGET}request_id IS NOT NULL AND {_ENDED_BEFORE}"


def insert_run(*more_columns: str) -> str:
    """The insert of a new run: the values of `insert_values`, then those of `more_columns`. It
    does nothing when the key is held (the unique index), so no error aborts the transaction."""
    columns = ", ".join((_INSERTED, *more_columns))
    marks = ", ".join(["%s"] * len(columns.split(",")))
    return f"INSERT INTO runs ({columns}) VALUES ({marks}) ON CONFLICT DO NOTHING"


def insert_values(run: run_pb2.Run, run_id: str, key: StartKey | None) -> tuple[Any, ...]:
    """The values of `insert_run()`."""
    if key is None:
        return (*run_values(run, run_id), run.created_by, None, None)
    return (*run_values(run, run_id), run.created_by, key.request_id, key.digest)


def key_values(key: StartKey) -> tuple[Any, ...]:
    """The values of EXPIRE_KEY and FIND_KEY."""
    return (key.tenant, key.principal, key.request_id, key.since_us)


def for_sqlite(sql: str) -> str:
    return sql.replace("%s", "?")
