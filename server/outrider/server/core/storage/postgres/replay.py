"""What the write-behind writer does when its PostgreSQL server changes under it (a standby was
promoted, or the server restarted).

With asynchronous replication a promoted standby may lack the last transactions the old primary
committed (those it had not received yet): events, run states and side-effect journal entries
this process was told were committed are simply not there. Every write of the writer is
idempotent, so it keeps the writes it committed in the last few seconds (`ReplayWindow`) and, on
its first transaction on a different server (`ServerIdentity`), sends them again before
anything new: what the new server has is left as it is, what it lacks is written again, and the
run's sequence stays gapless. With synchronous replication nothing is missing and the replay
changes nothing.

To send no more than needed, the writer notes the old server's WAL position every quarter second
(`Position`). A promoted standby tells how far it replayed the old primary's WAL; when that is
past the noted position, only what was committed after the note is sent again.
"""

from __future__ import annotations

import collections
import time
from dataclasses import dataclass, field
from typing import Any

import psycopg

from outrider.server.core.storage.postgres.writes import Write

# Bytes of statement parameters the window holds at most: the oldest batches leave first.
WINDOW_BYTES = 16 * 1024 * 1024

IDENTITY = (
    "SELECT pg_is_in_recovery(), host(inet_server_addr()), inet_server_port(), "
    "pg_postmaster_start_time()::text"
)
# The timeline the server writes on (it grows with each promotion), for log lines only: a
# service that hides WAL functions gets 0.
TIMELINE = "SELECT ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int"


class ReadOnlyServer(psycopg.OperationalError):
    """The connection reached a server that refuses writes (a standby, or a demoted primary a
    stale DNS name still points at): a connection problem, tried again on a new connection."""


@dataclass(frozen=True)
class ServerIdentity:
    """Which server process a connection reached: another address or another start time is
    another server (a promoted standby, or the same one restarted)."""

    address: str
    started: str
    timeline: int = field(compare=False)

    def __str__(self) -> str:
        return f"{self.address} (timeline {self.timeline})"


def identify(conn: psycopg.Connection[Any]) -> ServerIdentity:
    """The server of `conn` (an autocommit connection); ReadOnlyServer when it is a standby."""
    row = conn.execute(IDENTITY).fetchone()
    assert row is not None
    in_recovery, host, port, started = row
    if in_recovery:
        raise ReadOnlyServer(f"{host}:{port} is a standby (in recovery)")
    try:
        found = conn.execute(TIMELINE).fetchone()
        timeline = int(found[0]) if found else 0
    except psycopg.OperationalError:
        raise
    except psycopg.Error:
        timeline = 0
    return ServerIdentity(f"{host}:{port}", str(started), timeline)


def _size(write: Write) -> int:
    return 64 + sum(len(p) for p in write.params if isinstance(p, str | bytes))


@dataclass(frozen=True)
class _Batch:
    number: int  # batches committed before it
    committed: float  # monotonic seconds
    writes: list[Write]
    size: int


@dataclass(frozen=True)
class Position:
    """A WAL position of the old server read after `batches` batches were committed: every one
    of them is at or before it."""

    lsn: str
    batches: int


# On a promoted standby: the end of the WAL it replayed from the old primary (NULL on a server
# that never recovered): what the old server committed up to that point is there.
HAS_POSITION = "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn"


class ReplayWindow:
    """The writes committed in the last `seconds` (at most WINDOW_BYTES of them), oldest first,
    and the last WAL position known to cover some of them. Not thread-safe: the writer holds
    its lock around every call."""

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._batches: collections.deque[_Batch] = collections.deque()
        self._bytes = 0
        self.appended = 0  # batches ever committed
        self.position: Position | None = None

    def committed(self, writes: list[Write]) -> None:
        if self._seconds <= 0:
            return
        kept = [write for write in writes if write.replay is not None]
        if kept:
            size = sum(_size(write) for write in kept)
            self._batches.append(_Batch(self.appended, time.monotonic(), kept, size))
            self.appended += 1
            self._bytes += size
        self._prune()

    def writes(self, first: int = 0) -> list[Write]:
        """What to send again, in the order it was first committed, from batch `first` on."""
        self._prune()
        return [w for batch in self._batches if batch.number >= first for w in batch.writes]

    def forget(self, run_id: str) -> None:
        """The run was deleted: a replay must not bring any of it back."""
        kept: collections.deque[_Batch] = collections.deque()
        self._bytes = 0
        for batch in self._batches:
            writes = [w for w in batch.writes if (w.run_id or w.fenced) != run_id]
            if writes:
                size = sum(_size(write) for write in writes)
                kept.append(_Batch(batch.number, batch.committed, writes, size))
                self._bytes += size
        self._batches = kept

    def _prune(self) -> None:
        oldest = time.monotonic() - self._seconds
        while self._batches and (self._batches[0].committed < oldest or self._bytes > WINDOW_BYTES):
            self._bytes -= self._batches.popleft().size


def first_missing(conn: psycopg.Connection[Any], position: Position | None) -> int:
    """The first batch the server of `conn` (just found after another) may lack: none before
    `position` when it replayed the old server's WAL past it (a promoted standby), else all."""
    if position is None:
        return 0
    try:
        row = conn.execute(HAS_POSITION, (position.lsn,)).fetchone()
    except psycopg.OperationalError:
        raise
    except psycopg.Error:  # a service that hides WAL functions: send everything
        return 0
    return position.batches if row is not None and row[0] else 0
