"""A replica's claim on a run whose owner is gone, as one transaction: the run's row is locked
first, then its owner's presence is looked up in a statement of its own.

One UPDATE whose condition joins `pg_locks` is not enough: PostgreSQL plans the presence check as
an anti-join, and a claimant that waited for another claimant's row lock re-checks the row it
waited for but not the join, so it took a run the other had just claimed (two owners, both
executing it). Locked first, the row is read as the other claimant left it, and the presence of
that owner is then read afresh."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from outrider.server.core.errors import Unavailable
from outrider.server.core.storage.contract import ACTIVE_STATES
from outrider.server.core.storage.postgres.presence import unowned

_LOCK_RUN = "SELECT owner, takeovers FROM runs WHERE id = %s AND state = ANY(%s) FOR UPDATE"
_OWNER_GONE = f"SELECT {unowned('%s::bigint')}"
_CLAIM = "UPDATE runs SET owner = %s, takeovers = takeovers + 1 WHERE id = %s RETURNING takeovers"


def claim_run(
    pool: ConnectionPool[Any], run_id: str, claimant: int, generation: int | None
) -> int | None:
    """The run's new owner generation once `claimant` (a presence key) owns it; None when it is
    not active, its owner lives, or its generation is no longer `generation` (when given)."""
    try:
        with pool.connection() as conn, conn.transaction():
            row = conn.execute(_LOCK_RUN, (run_id, list(ACTIVE_STATES))).fetchone()
            if row is None or (generation is not None and row[1] != generation):
                return None
            gone = conn.execute(_OWNER_GONE, (row[0],)).fetchone()
            if not (gone and gone[0]):
                return None
            claimed = conn.execute(_CLAIM, (claimant, run_id)).fetchone()
    except (psycopg.OperationalError, psycopg.errors.ReadOnlySqlTransaction) as error:
        raise Unavailable(f"PostgreSQL: {error}", reason="STORE_UNAVAILABLE") from error
    return int(claimed[0]) if claimed else None
