"""The PostgreSQL store's connections: a pool for reads (each a short round trip after the read
barrier, `Unavailable` when it cannot get an answer in time), the write-behind writer
(`writer`), the LISTEN connection of live events (`events`) and this process's presence lock
(`presence`). The store's parts (`cluster`, `artifacts`, `recipes`, `store`) build on it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from outrider.server.core import clock
from outrider.server.core.errors import Unavailable
from outrider.server.core.storage.contract import (
    EventFeed,
)
from outrider.server.core.storage.migrations import postgres as migrations
from outrider.server.core.storage.postgres.connect import check_url, with_client_options
from outrider.server.core.storage.postgres.events import PgEventFeed
from outrider.server.core.storage.postgres.presence import (
    Presence,
)
from outrider.server.core.storage.postgres.reachability import Reachability
from outrider.server.core.storage.postgres.replay import ReadOnlyServer
from outrider.server.core.storage.postgres.writer import WriteBehind

_POOL_SIZE = 4
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


class PostgresConnection:
    """What every part of the PostgreSQL store reads and writes through."""

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
        # run id -> owner generation, of the active runs this process inserted or claimed: every
        # write to one carries it (`_fence`), so a write of an earlier generation is refused
        self._generations: dict[str, int] = {}

    def _connect_writer(self) -> psycopg.Connection[Any]:
        """The write-behind thread's own connection (see `writer`)."""
        return psycopg.connect(
            with_client_options(self._url), autocommit=True, application_name="outrider-writer"
        )

    def _fence(self, run_id: str) -> tuple[str, int, int | None]:
        """The parameters of `presence.OWNED` for a write of this process to the run."""
        return run_id, self._presence.key, self._generations.get(run_id)

    def close(self) -> None:
        self._feed.close()
        self._writer.close()
        self._forget_address()
        self._pool.close()
        self._presence.close()

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
