"""New runs on PostgreSQL: inserted in a transaction of their own, committed before the start is
answered or the run executes (not behind the write-behind queue), with the cluster-wide limits
counted and the idempotency key taken in the same transaction.

The outcome is known for certain except in one case: the connection fails while COMMIT is on the
way. Then `StartInDoubt` says so, and the caller settles it later with `run_saved`."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from outrider.server.core.errors import StartInDoubt, Unavailable
from outrider.server.core.storage.contract import (
    ACTIVE_STATES,
    REQUEST_ID_TAKEN,
    ActiveLimits,
    StartKey,
)
from outrider.server.core.storage.session_rows import FORGET_EXPIRED_SESSION_KEYS
from outrider.server.core.storage.start_keys import (
    EXPIRE_KEY,
    FORGET_EXPIRED,
    insert_run,
    insert_values,
    key_values,
)
from outrider.v1 import run_pb2

# The transaction-level advisory lock starts hold while they count active runs (a one-part key:
# a separate space from the two-part presence locks), and the longest wait for it before a
# start is refused (UNAVAILABLE).
_ADMISSION_LOCK = 0x6F757472_61646D74
_ADMISSION_WAIT = "5s"
# The longest one statement of a start may take (a lock held on `runs`, a stalled disk) before
# PostgreSQL rolls it back. Longer than the caller waits (core.starts.START_WAIT): a start that
# commits late is the case `RunManager` settles (see the README, "Idempotent starts").
_STATEMENT_WAIT = "30s"
COUNT_ACTIVE = (
    "SELECT count(*) FROM runs WHERE state = ANY(%s) AND (%s::text IS NULL OR tenant = %s)"
)


def insert_new_run(
    pool: ConnectionPool[Any],
    run: run_pb2.Run,
    ids: tuple[str, int],
    limits: ActiveLimits,
    key: StartKey | None,
) -> str | None:
    """Inserts the run (ids: run id, owner's presence key) unless refused; see the module doc."""
    committing = False
    try:
        with pool.connection() as conn:
            with conn.transaction():
                conn.execute(f"SET LOCAL statement_timeout = '{_STATEMENT_WAIT}'")
                refusal = _refusal(conn, run.tenant, limits)
                if refusal is None:
                    refusal = _insert(conn, run, ids, key)
                committing = refusal is None
            return refusal
    except psycopg.Error as error:
        if committing:
            raise StartInDoubt(
                f"PostgreSQL did not confirm that it saved the run: {error}"
            ) from error
        raise Unavailable(
            f"PostgreSQL did not save the run (nothing was started): {error}",
            reason="STORE_UNAVAILABLE",
        ) from error


def _refusal(conn: psycopg.Connection[Any], tenant: str, limits: ActiveLimits) -> str | None:
    """With limits, waits its turn behind the other starts of every replica, then counts."""
    if not limits.cluster and not limits.tenant:
        return None
    conn.execute(f"SET LOCAL lock_timeout = '{_ADMISSION_WAIT}'")
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_ADMISSION_LOCK,))

    def count(of: str | None) -> int:
        row = conn.execute(COUNT_ACTIVE, (list(ACTIVE_STATES), of, of)).fetchone()
        return int(row[0]) if row else 0

    return limits.refusal(tenant, count)


def _insert(
    conn: psycopg.Connection[Any], run: run_pb2.Run, ids: tuple[str, int], key: StartKey | None
) -> str | None:
    run_id, owner = ids
    if key is not None:
        conn.execute(EXPIRE_KEY, key_values(key))
    row = conn.execute(
        insert_run("owner") + " RETURNING 1", (*insert_values(run, run_id, key), owner)
    ).fetchone()
    return None if row is not None else REQUEST_ID_TAKEN


def forget_expired(pool: ConnectionPool[Any], before_us: int) -> int:
    """Frees the expired request ids of runs (`storage.start_keys`) and of sessions' creates
    (`storage.session_rows`); how many."""
    try:
        with pool.connection() as conn, conn.transaction():
            conn.execute(f"SET LOCAL statement_timeout = '{_STATEMENT_WAIT}'")
            runs = conn.execute(FORGET_EXPIRED, (before_us,)).rowcount
            return int(runs + conn.execute(FORGET_EXPIRED_SESSION_KEYS, (before_us,)).rowcount)
    except psycopg.Error as error:
        raise Unavailable(f"PostgreSQL: {error}", reason="STORE_UNAVAILABLE") from error
