"""Live events across processes: one LISTEN connection per process, on the event loop, wakes the
watchers of a run when another process commits events of it (`pg_notify` from `WriteBehind`).

A notification only says "run R has events up to N": the watcher reads the rows after its own
cursor, so a lost, merged or repeated notification never costs or repeats an event. After every
(re)connection all watchers are woken once, to read what was committed while nobody listened.
"""

from __future__ import annotations

import asyncio
import logging
import random

import psycopg

from outrider.server.core.storage.postgres.connect import with_client_options
from outrider.server.core.storage.postgres.writer import EVENTS_CHANNEL

log = logging.getLogger(__name__)

_FIRST_DELAY = 0.1  # seconds before the first reconnection attempt


def _server_of(conn: psycopg.AsyncConnection[object]) -> str:
    return f"{conn.info.host}:{conn.info.port}"


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
    """LISTENs on its own connection, as a task of the event loop (started with the first
    watch, so no thread hop between a notification and its watchers), and wakes watchers."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._watches: dict[str, set[RemoteWatch]] = {}
        self._task: asyncio.Task[None] | None = None

    def watch(self, run_id: str) -> RemoteWatch:
        """Subscribes before the caller reads, so nothing committed afterwards goes unheard."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._listen())
        watch = RemoteWatch(self, run_id)
        self._watches.setdefault(run_id, set()).add(watch)
        return watch

    def forget(self, watch: RemoteWatch) -> None:
        watches = self._watches.get(watch.run_id, set())
        watches.discard(watch)
        if not watches:
            self._watches.pop(watch.run_id, None)

    def close(self) -> None:
        """Stops listening; the task closes its connection as the loop runs it to its end."""
        if self._task is not None:
            self._task.cancel()

    def _wake(self, run_id: str | None) -> None:
        """Wakes the run's watchers (every watcher for None)."""
        if run_id is None:
            targets = [w for watches in self._watches.values() for w in watches]
        else:
            targets = list(self._watches.get(run_id, ()))
        for watch in targets:
            watch.wake()

    async def _listen(self) -> None:
        delay, lost = _FIRST_DELAY, False
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    # with keepalives: an idle LISTEN notices a vanished server
                    with_client_options(self._url),
                    autocommit=True,
                    application_name="outrider-listen",
                ) as conn:
                    await conn.execute(f"LISTEN {EVENTS_CHANNEL}")
                    self._wake(None)
                    if lost:
                        log.warning("PostgreSQL LISTEN connection back (%s)", _server_of(conn))
                    delay, lost = _FIRST_DELAY, False
                    async for notice in conn.notifies():
                        self._wake(notice.payload.split(" ", 1)[1])
            except psycopg.OperationalError as error:
                if not lost:
                    log.warning("PostgreSQL LISTEN connection lost, reconnecting: %s", error)
                lost = True
                await asyncio.sleep(delay * random.uniform(0.8, 1.2))  # replicas apart
                # not much longer: a promoted standby is heard from within half a second
                delay = min(delay * 2, 0.5)
