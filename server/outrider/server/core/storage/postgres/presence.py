"""A process's liveness as PostgreSQL sees it: a session advisory lock on a key of its own, held
on a dedicated connection. PostgreSQL releases it the moment that session ends (the process
exits or is killed; on a lost network, once TCP keepalive gives up), so every process can tell
which runs are owned by nobody alive. Runs record their owner's key in `runs.owner`."""

from __future__ import annotations

import secrets
import threading

import psycopg

from outrider.server.core.storage.postgres.connect import with_client_options

# The first half of every presence lock's two-part key ("outr"); the second half is the owner.
NAMESPACE = 0x6F757472


def unowned(owner: str) -> str:
    """SQL condition: the presence key in column `owner` is held by no live session in this
    database (or is NULL)."""
    return (
        "NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted "
        "AND l.objsubid = 2 AND l.database = (SELECT oid FROM pg_database "
        f"WHERE datname = current_database()) AND l.classid::bigint = {NAMESPACE} "
        f"AND l.objid::bigint = {owner})"
    )


# Runs (aliased `r`) whose owner holds no presence lock: nobody executes them.
UNOWNED = unowned("r.owner")

# The run's owner generation as the writer knows it (a NULL parameter: it knows none, and its
# presence key alone fences). A claim adds one, so a write of an earlier owner's time is refused
# even when that owner holds the run again since (its key alone would let it through).
_IN_GENERATION = "takeovers = COALESCE(%s::integer, takeovers)"
# The condition of a fenced write, with the run's id, this process's presence key and the run's
# owner generation (see `_IN_GENERATION`) as its parameters. FOR SHARE: a claim (which locks the
# run's row) waits for the writing transaction, so what was written before the claim is seen by
# the claimant.
OWNED = f"EXISTS (SELECT 1 FROM runs WHERE id = %s AND owner = %s AND {_IN_GENERATION} FOR SHARE)"
# OWNED, or the run's owner is dead (same parameters): for writes anyone may make to a run
# nobody executes.
OWNED_OR_ORPHANED = (
    "EXISTS (SELECT 1 FROM runs r WHERE r.id = %s AND "
    f"((r.owner = %s AND r.{_IN_GENERATION}) OR {UNOWNED}) FOR SHARE)"
)


KEEPALIVES = "-c tcp_keepalives_idle=3 -c tcp_keepalives_interval=1 -c tcp_keepalives_count=3"


class Presence:
    """Holds this process's presence lock until `close()` (or until the process dies). Safe in
    any thread: the presence keeper checks it from one, sweeps read `held` on the loop."""

    def __init__(self, url: str, connect_timeout: float) -> None:
        self._url = with_client_options(url)
        self._timeout = int(connect_timeout)
        self._guard = threading.Lock()
        self._conn = self._connect()
        self.key = 0
        while not self.key:  # a key no other live process holds
            candidate = secrets.randbelow(2**31 - 1) + 1
            self.key = candidate if self._lock(candidate) else 0
        self.held = True  # as far as the last check knows
        self.retaken = 0  # times the lock was taken again (each a new epoch: see Takeover)

    def ensure(self) -> bool:
        """Takes the same lock again on a new session when the old one is gone (PostgreSQL
        restarted or dropped it); True when it did. Meanwhile other processes saw this one's
        runs as nobody's, which is why they wait a second sweep before taking any over and
        wait for it before refusing a relayed call (`relay.executor_address`). Raises
        psycopg.Error while it cannot."""
        with self._guard:
            try:
                self._conn.execute("SELECT 1")
                self.held = True
                return False
            except psycopg.Error:
                self.held = False
                self._conn.close()
            self._conn = self._connect()
            if not self._lock(self.key):
                raise psycopg.OperationalError(
                    f"presence key {self.key} is still held by this process's previous session"
                )
            self.held = True
            self.retaken += 1
            return True

    def _connect(self) -> psycopg.Connection[tuple[object, ...]]:
        return psycopg.connect(
            self._url,
            autocommit=True,
            connect_timeout=self._timeout,
            application_name="outrider-presence",
            # The server drops this session, and the lock with it, about 6 s after the network to
            # this process is lost (idle 3 s, then 3 probes 1 s apart), not hours later.
            options=KEEPALIVES,
        )

    def _lock(self, key: int) -> bool:
        row = self._conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (NAMESPACE, key)).fetchone()
        return bool(row and row[0])

    def close(self) -> None:
        """Releases the lock before hanging up: a closed session's locks go only once its server
        process notices, which other processes could otherwise race."""
        with self._guard:
            try:
                self._conn.execute("SELECT pg_advisory_unlock(%s, %s)", (NAMESPACE, self.key))
            except psycopg.Error:
                pass  # the session is gone already, and its lock with it
            finally:
                self.held = False
                self._conn.close()
