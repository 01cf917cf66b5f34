"""The SQLite store's connection and its transactions.

One connection, used only from the event loop's thread. Writes are grouped: the first write of a
loop iteration opens a transaction and a callback scheduled with `call_soon` commits it, so a burst
of events costs one commit, and reads on the same connection see every write immediately. Event
rows, the bulk of the writes, wait in a list and go in with one `executemany` when the transaction
commits or before anything reads events, whichever comes first: one statement per burst rather
than one per event. Reads of events commit first, so they only ever return committed events, and
`when_committed` callbacks (the event log's fan-out to live watchers) run right after a commit:
no watcher is sent an event a crash could still take back.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from outrider.server.core import clock
from outrider.server.core.storage.migrations import sqlite as migrations
from outrider.server.core.storage.sqlite.artifact_files import ArtifactFiles
from outrider.server.core.storage.sqlite.checkpoints import Checkpointer


class SqliteConnection:
    """One connection, used only from the event loop's thread, and its grouped writes."""

    def __init__(self, path: Path, artifacts_dir: Path | None = None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._files = ArtifactFiles(artifacts_dir or path.parent / "artifacts")
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        # Only takes effect on a new file (before its first table): deleted runs' pages then go
        # back to the file system in `reclaim_space`, not just to SQLite's free list.
        self._conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self.applied_migrations = migrations.migrate(self._conn, clock.now_us())
        # Checkpoints happen in a thread rather than in whichever COMMIT fills the log.
        self._conn.execute("PRAGMA wal_autocheckpoint=0")
        self._checkpoints = Checkpointer(path)
        self._commit_scheduled = False
        self._pending_events: list[tuple[str, int, bytes]] = []
        self._after_commit: list[Callable[[], None]] = []

    def close(self) -> None:
        self.flush()
        self._checkpoints.close()
        self._conn.close()  # the last connection: checkpoints the rest of the log

    def flush(self) -> None:
        """Commits the open transaction, if any."""
        self._commit_scheduled = False
        self._insert_pending_events()
        if self._conn.in_transaction:
            self._conn.execute("COMMIT")
            self._checkpoints.committed()
        callbacks, self._after_commit = self._after_commit, []
        for callback in callbacks:
            callback()

    def when_committed(self, callback: Callable[[], None]) -> None:
        if self._conn.in_transaction:
            self._after_commit.append(callback)
        else:
            callback()

    def commit_marks(self) -> tuple[int, int]:
        return 0, 0  # when_committed callbacks run right after the commit of every prior write

    async def committed(self) -> None:
        self.flush()  # a local commit: no network to wait for

    def _write(self, sql: str, params: Sequence[Any]) -> None:
        self._begin_write()
        self._conn.execute(sql, params)

    def _begin_write(self) -> None:
        """Opens this loop iteration's transaction (if not open yet) and schedules its commit."""
        if not self._conn.in_transaction:
            self._conn.execute("BEGIN")
        self._schedule_commit()

    def _insert_pending_events(self) -> None:
        """Writes the queued event rows into the open transaction (one statement for all)."""
        if not self._pending_events:
            return
        rows, self._pending_events = self._pending_events, []
        self._conn.executemany("INSERT INTO events (run_id, sequence, body) VALUES (?, ?, ?)", rows)

    def _schedule_commit(self) -> None:
        if self._commit_scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        self._commit_scheduled = True
        loop.call_soon(self.flush)
