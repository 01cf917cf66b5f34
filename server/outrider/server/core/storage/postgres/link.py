"""The write-behind writer's connection to whichever server is the primary now: opened again
whenever it is lost, identified each time (`pg_replay.identify`), and, when it leads to a
different server than before, the writes that server may lack are due again (`replay`)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg

from outrider.server.core.storage.postgres.replay import (
    Position,
    ReplayWindow,
    ServerIdentity,
    first_missing,
    identify,
)
from outrider.server.core.storage.postgres.writes import Write
from outrider.server.telemetry import metrics

log = logging.getLogger(__name__)

_NOTE_EVERY = 0.25  # seconds between two notes of the server's WAL position


class WriterLink:
    """Used by the writer's thread, except `committed_directly` and `deleted` (any thread)."""

    def __init__(
        self, connect: Callable[[], psycopg.Connection[Any]], replay_seconds: float
    ) -> None:
        self._connect = connect
        self._conn: psycopg.Connection[Any] | None = None
        self._server: ServerIdentity | None = None  # of the connection last opened
        self._lock = threading.Lock()  # guards the window
        self._window = ReplayWindow(replay_seconds)
        self._replay_from: int | None = None  # the first window batch to send again, if due
        self._noted_at = 0.0  # when the WAL position was last noted

    def connection(self) -> psycopg.Connection[Any]:
        """The open connection, or a new one (ReadOnlyServer or another OperationalError when
        no primary answers)."""
        if self._conn is not None and not self._conn.closed:
            return self._conn
        conn = self._connect()
        try:
            server = identify(conn)
            if self._server is not None and server != self._server:
                self._moved(conn, server)
        except BaseException:
            conn.close()
            raise
        self._conn, self._server = conn, server
        return conn

    def _moved(self, conn: psycopg.Connection[Any], server: ServerIdentity) -> None:
        log.warning("PostgreSQL server changed: %s, was %s", server, self._server)
        with self._lock:
            position = self._window.position
        self._replay_from = first_missing(conn, position)
        with self._lock:
            self._window.position = None  # a position of the old server
        self._noted_at = 0.0
        metrics.store_server_changed()

    def hang_up(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def due(self) -> list[Write] | None:
        """The writes to send again before the next batch, None when no replay is due."""
        if self._replay_from is None:
            return None
        with self._lock:
            return self._window.writes(self._replay_from)

    def replayed(self, count: int) -> None:
        self._replay_from = None
        log.warning("sent %d recent writes again to %s", count, self._server)
        metrics.store_writes_replayed(count)

    def give_up_replay(self, error: psycopg.Error) -> bool:
        """The transaction carrying a replay was refused for its data: True when one was due
        (it is dropped, so the batch goes on without it)."""
        if self._replay_from is None:
            return False
        log.error("could not write the recent writes again: %s", error)
        self._replay_from = None
        return True

    def committed(self, batch: list[Write]) -> None:
        """A batch was committed on the open connection."""
        with self._lock:
            self._window.committed(batch)
        self._note_position()

    def committed_directly(self, writes: list[Write]) -> None:
        """Idempotent writes committed outside the queue (in a transaction of their own, such
        as a new run's insert): a replay on a new server sends them again with the rest."""
        with self._lock:
            self._window.committed(writes)

    def deleted(self, run_id: str, deletes: list[Write]) -> None:
        """The run was deleted (by `deletes`, committed on their own): a replay on a new server
        deletes it again rather than bring any of it back."""
        with self._lock:
            self._window.forget(run_id)
            self._window.committed(deletes)

    def _note_position(self) -> None:
        """Notes the server's WAL position, at most every quarter second: everything committed
        before it is there on a standby promoted past it (`first_missing`), so a replay can
        leave it out."""
        if self._conn is None or time.monotonic() - self._noted_at < _NOTE_EVERY:
            return
        with self._lock:
            batches = self._window.appended
        if not batches:
            return
        try:
            row = self._conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()
        except psycopg.OperationalError:
            self.hang_up()  # the next batch finds out why
            return
        except psycopg.Error:  # WAL functions hidden (a managed service): replay everything
            return
        self._noted_at = time.monotonic()
        if row is not None:
            with self._lock:
                self._window.position = Position(str(row[0]), batches)
