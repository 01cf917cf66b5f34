"""Live events across processes: one LISTEN connection per process, on a thread, wakes the
watchers of a run when another process commits events of it (`pg_notify` from `WriteBehind`).

A notification only says "run R has events up to N": the watcher reads the rows after its own
cursor, so a lost, merged or repeated notification never costs or repeats an event. After every
(re)connection all watchers are woken once, to read what was committed while nobody listened.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import psycopg

from outrider.server.core.storage.pg_writer import EVENTS_CHANNEL

log = logging.getLogger(__name__)

_POLL = 0.5  # seconds between checks for close() while no notification arrives


class RemoteWatch:
    """A watcher's wake-up signal for one run; created and used on the event loop."""

    def __init__(self, feed: PgEventFeed, run_id: str) -> None:
        self.run_id = run_id
        self._feed = feed
        self._woken = asyncio.Event()

    def wake(self) -> None:
        self._woken.set()

    async def wait(self, idle_after: float) -> bool:
        """True when events may have arrived, False after `idle_after` seconds of silence. Clears
        the signal, so a notification during the caller's next read wakes the next wait."""
        try:
            await asyncio.wait_for(self._woken.wait(), idle_after)
        except TimeoutError:
            return False
        self._woken.clear()
        return True

    def close(self) -> None:
        self._feed.forget(self)


class PgEventFeed:
    """LISTENs on its own connection (started with the first watch) and wakes watchers."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._watches: dict[str, set[RemoteWatch]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    def watch(self, run_id: str) -> RemoteWatch:
        """Subscribes before the caller reads, so nothing committed afterwards goes unheard."""
        if self._thread is None:
            self._loop = asyncio.get_running_loop()
            self._thread = threading.Thread(target=self._listen, name="outrider-pg-listen")
            self._thread.daemon = True
            self._thread.start()
        watch = RemoteWatch(self, run_id)
        self._watches.setdefault(run_id, set()).add(watch)
        return watch

    def forget(self, watch: RemoteWatch) -> None:
        watches = self._watches.get(watch.run_id, set())
        watches.discard(watch)
        if not watches:
            self._watches.pop(watch.run_id, None)

    def close(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()

    def _wake(self, run_id: str | None) -> None:
        """On the loop: wakes the run's watchers (every watcher for None)."""
        if run_id is None:
            targets = [w for watches in self._watches.values() for w in watches]
        else:
            targets = list(self._watches.get(run_id, ()))
        for watch in targets:
            watch.wake()

    def _listen(self) -> None:
        delay = 0.1
        while not self._stopping.is_set():
            try:
                with psycopg.connect(self._url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {EVENTS_CHANNEL}")
                    self._call(None)
                    delay = 0.1
                    while not self._stopping.is_set():
                        for notice in conn.notifies(timeout=_POLL):
                            self._call(notice.payload.split(" ", 1)[1])
            except psycopg.OperationalError as error:
                log.warning("PostgreSQL LISTEN connection lost, reconnecting: %s", error)
                time.sleep(delay)
                delay = min(delay * 2, 5.0)

    def _call(self, run_id: str | None) -> None:
        assert self._loop is not None
        try:
            self._loop.call_soon_threadsafe(self._wake, run_id)
        except RuntimeError:  # the loop is closed: nobody is left to wake
            self._stopping.set()
