"""Checkpoints of the SQLite store's write-ahead log, taken off the event loop.

SQLite's automatic checkpoint runs inside the COMMIT that fills the log past 1,000 pages: the
committing call copies the pages into the database file and waits for both files to reach the
disk. The store commits on the event loop, so that wait stalled every stream of the process,
and a run writing events fast (an SSE benchmark's 20,000 events fill the log every few thousand)
paid it over and over. Here the store turns the automatic checkpoint off and a thread with its
own connection checkpoints instead, at most every `interval` seconds while commits happen.

What is committed is durable as before (the log is part of the database; a checkpoint only
moves pages into the main file), and readers see the same data. A PASSIVE checkpoint never
blocks the writer; whatever it could not copy is copied by the next one, or at close.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

log = logging.getLogger(__name__)

DEFAULT_INTERVAL = 0.2


class Checkpointer:
    """A thread that checkpoints `path`'s log after commits, at most every `interval`
    seconds."""

    def __init__(self, path: Path, interval: float = DEFAULT_INTERVAL) -> None:
        self._path = path
        self._interval = interval
        self._due = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name="outrider-sqlite-checkpoints", daemon=True
        )
        self._thread.start()

    def committed(self) -> None:
        """Tells the thread the log grew (called after each commit, from the event loop)."""
        self._due.set()

    def close(self) -> None:
        """Stops the thread; the store's own connection, closed last, checkpoints what is left."""
        self._stop.set()
        self._due.set()
        self._thread.join()

    def _run(self) -> None:
        conn = sqlite3.connect(self._path, isolation_level=None)
        try:
            while not self._stop.is_set():
                self._due.wait()
                self._due.clear()
                if self._stop.is_set():
                    return
                self._checkpoint(conn)
                self._stop.wait(self._interval)  # commits meanwhile set `_due` again
        finally:
            conn.close()

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        try:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as error:  # the next commit asks again
            log.warning("checkpoint of %s failed: %s", self._path, error)
