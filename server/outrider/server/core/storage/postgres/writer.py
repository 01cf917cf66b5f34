"""Write-behind for PostgreSQL: the event loop queues statements and returns at once; one thread
commits them in order, a batch per transaction, so a burst of events costs one round trip and
one commit, and the loop never waits on the network to write.

Every queued statement is idempotent (inserts ignore an existing key, saves are upserts), but a
recipe's replay counter (a lost acknowledgement counts that replay twice): when a connection
drops mid-commit, the whole batch is sent again without knowing whether it landed.
Events of a batch are announced with `pg_notify` in the same transaction, so a watcher in another
process hears of them exactly when they become readable.

The thread writes on a connection of its own, opened again whenever it is lost (a restart, a
failover to a promoted standby: a multi-host URL finds the new primary), a few times a second
while PostgreSQL cannot be reached, so queued writes go in as soon as a primary accepts them. A
server that refuses writes (a standby a stale address still points at) counts as unreachable:
its refusals are never taken for bad data. On a different server than the last it committed to,
it first sends again the recent writes that server may lack (`link`, `replay`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import groupby
from typing import Any

import psycopg

from outrider.server.core.errors import Unavailable
from outrider.server.core.storage.postgres.link import WriterLink
from outrider.server.core.storage.postgres.replay import ReadOnlyServer
from outrider.server.core.storage.postgres.writes import Write

log = logging.getLogger(__name__)

EVENTS_CHANNEL = "outrider_events"
_GIVE_UP_EVERY = 0.25  # seconds between two looks at a barrier's give_up()
# Seconds between two attempts while PostgreSQL cannot be reached: a promoted standby is found
# within half a second of accepting writes.
_RETRY_DELAYS = (0.05, 0.1, 0.2, 0.5)
_LOG_EVERY = 20  # attempts between two log lines of one outage


@dataclass(frozen=True)
class _Callback:
    target: int  # the writes queued when it was registered
    loop: asyncio.AbstractEventLoop
    callback: Callable[[], None]


class WriteBehind:
    """An ordered queue of writes drained by one thread; `wait()` is the read barrier."""

    def __init__(
        self,
        connect: Callable[[], psycopg.Connection[Any]],
        barrier_timeout: float,
        replay_seconds: float = 0.0,
    ) -> None:
        self._link = WriterLink(connect, replay_seconds)
        self._barrier_timeout = barrier_timeout
        self._queue: list[Write] = []
        self._queued = 0  # writes ever queued
        self._committed = 0  # writes ever committed (or given up on, see _commit_one_by_one)
        self._closing = False
        self._changed = threading.Condition()
        # after_commit callbacks waiting for their writes, in registration order
        self._callbacks: collections.deque[_Callback] = collections.deque()
        self._unrun = 0  # callbacks handed to their loop that have not run yet
        self._fenced_out: set[str] = set()  # runs a fenced write was refused for
        self._backlog = 0  # artifact bytes queued, not committed yet
        self._held: list[Write] | None = None  # writes of a `together` block, not queued yet
        self._thread = threading.Thread(target=self._drain, name="outrider-pg-writer", daemon=True)
        self._thread.start()

    def put(self, write: Write) -> None:
        if self._held is not None:
            self._held.append(write)
            return
        self._put_all([write])

    @contextlib.contextmanager
    def together(self) -> Iterator[None]:
        """Writes put inside are queued at once when it ends, so one batch (one transaction)
        takes all of them. Only the event loop's thread puts writes; nothing inside awaits."""
        if self._held is not None:  # nested: the outer block queues them
            yield
            return
        self._held = []
        try:
            yield
        finally:
            held, self._held = self._held, None
            if held:
                self._put_all(held)

    @property
    def _holding(self) -> int:
        """Writes of an open `together` block: queued next, so a mark counts them already."""
        return len(self._held) if self._held is not None else 0

    def _put_all(self, writes: list[Write]) -> None:
        with self._changed:
            if self._closing:
                raise Unavailable("the store is closed")
            self._queue.extend(writes)
            self._queued += len(writes)
            self._backlog += sum(write.weight for write in writes)
            self._changed.notify_all()

    @property
    def backlog_bytes(self) -> int:
        """Artifact bytes queued and not committed yet: they grow while PostgreSQL is slow or
        unreachable, and are held in memory until then."""
        with self._changed:
            return self._backlog

    @property
    def marks(self) -> tuple[int, int]:
        """(writes queued, writes committed) so far: a write queued at mark m is committed once
        the second figure reaches m."""
        with self._changed:
            return self._queued + self._holding, self._committed

    def fenced_out(self, run_id: str) -> bool:
        """A write of this process to the run was refused: another process owns it now. Known
        before the refused write counts as committed (so before `after_commit` callbacks)."""
        with self._changed:
            return run_id in self._fenced_out

    def committed_directly(self, writes: list[Write]) -> None:
        """Idempotent writes committed outside the queue (in a transaction of their own, such
        as a new run's insert): a replay on a new server sends them again with the rest."""
        self._link.committed_directly(writes)

    def deleted(self, run_id: str, deletes: list[Write]) -> None:
        """The run was deleted (by `deletes`, committed on their own): a replay on a new server
        deletes it again rather than bring any of it back. Call it after `wait()`."""
        self._link.deleted(run_id, deletes)

    def owned_again(self, run_id: str) -> None:
        """This process claimed the run (back): its writes to it are no longer refused."""
        with self._changed:
            self._fenced_out.discard(run_id)

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Runs `callback` on the running event loop once every write queued so far is
        committed, after the callbacks registered before it (outside a loop: waits, then runs
        it)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.wait()
            callback()
            return
        with self._changed:
            target = self._queued + self._holding
            at_once = not self._callbacks and not self._unrun and self._committed >= target
            if not at_once:
                self._callbacks.append(_Callback(target, loop, callback))
                self._post_due()
        if at_once:
            callback()

    def _post_due(self) -> None:
        """Hands the callbacks whose writes are committed to their loops (lock held)."""
        while self._callbacks and self._callbacks[0].target <= self._committed:
            due = self._callbacks.popleft()
            self._unrun += 1
            try:
                due.loop.call_soon_threadsafe(self._run_posted, due.callback)
            except RuntimeError:  # that loop is closed: nobody is left to tell
                self._unrun -= 1

    def _run_posted(self, callback: Callable[[], None]) -> None:
        with self._changed:
            self._unrun -= 1
        callback()

    def wait(self, give_up: Callable[[], bool] = lambda: False) -> None:
        """Returns once every write queued before the call is committed; Unavailable after the
        barrier timeout, or as soon as `give_up()` (the store is known to be unreachable)."""
        deadline = time.monotonic() + self._barrier_timeout
        with self._changed:
            target = self._queued
            while not self._changed.wait_for(lambda: self._committed >= target, _GIVE_UP_EVERY):
                if give_up():
                    raise Unavailable(
                        "PostgreSQL is unreachable: this process's writes wait to be committed",
                        reason="STORE_UNAVAILABLE",
                    )
                if time.monotonic() >= deadline:
                    raise Unavailable(
                        "PostgreSQL did not commit this process's writes in "
                        f"{self._barrier_timeout:g}s",
                        reason="STORE_UNAVAILABLE",
                    )

    def close(self) -> None:
        """Commits what is queued, then stops the thread."""
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        self._thread.join()
        self._link.hang_up()

    def _drain(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._queue) or self._closing)
                batch, self._queue = self._queue, []
            if not batch:
                return
            self._commit(batch)
            with self._changed:
                self._committed += len(batch)
                self._backlog -= sum(write.weight for write in batch)
                self._post_due()
                self._changed.notify_all()

    def _commit(self, batch: list[Write]) -> None:
        """Retries while PostgreSQL is unreachable (for good once closing, after a few tries)."""
        attempt, since = 0, time.monotonic()
        while True:
            try:
                self._commit_batch(batch)
            except psycopg.OperationalError as error:  # the connection, not the data
                attempt += 1
                if self._closing and attempt > 2 * len(_RETRY_DELAYS):
                    log.error("dropped %d writes: PostgreSQL unreachable: %s", len(batch), error)
                    return
                if attempt % _LOG_EVERY == 1:
                    log.warning("PostgreSQL write failed (attempt %d): %s", attempt, error)
                time.sleep(_retry_delay(attempt))
                continue
            except psycopg.Error as error:
                if self._link.give_up_replay(error):  # the batch goes on without it
                    continue
                self._commit_one_by_one(batch)
            if attempt:
                log.warning(
                    "PostgreSQL writes committed again after %d failed attempts (%.1f s)",
                    attempt,
                    time.monotonic() - since,
                )
            return

    def _commit_batch(self, batch: list[Write]) -> None:
        conn = self._link.connection()
        replay = self._link.due()
        announce: dict[str, int] = {}
        try:
            with conn.transaction(), conn.cursor() as cur:
                self._send(cur, replay or [], announce, replaying=True)
                refused = self._send(cur, batch, announce)
                for run_id, sequence in announce.items():
                    cur.execute(
                        "SELECT pg_notify(%s, %s)", (EVENTS_CHANNEL, f"{sequence} {run_id}")
                    )
        except psycopg.errors.ReadOnlySqlTransaction as error:
            self._link.hang_up()
            raise ReadOnlyServer(f"PostgreSQL refused writes: {error}") from error
        except psycopg.OperationalError:
            self._link.hang_up()
            raise
        if replay is not None:
            self._link.replayed(len(replay))
        with self._changed:
            self._fenced_out |= refused
        self._link.committed(batch)

    def _send(
        self,
        cur: psycopg.Cursor[Any],
        writes: list[Write],
        announce: dict[str, int],
        replaying: bool = False,
    ) -> set[str]:
        """Executes the writes (consecutive ones of one statement as one pipelined executemany),
        noting the newest sequence of each run's events in `announce`; returns the runs a
        fenced write was refused for (a replay's refusals are none of the batch's business)."""
        refused: set[str] = set()
        for sql, group in groupby(writes, key=lambda write: write.statement(replaying)):
            writes_of = list(group)
            fenced = writes_of[0].fenced is not None and not replaying
            cur.executemany(sql, [write.params for write in writes_of], returning=fenced)
            if fenced:
                refused |= _refused(cur, writes_of)
            for write in writes_of:
                if write.announces is not None:
                    run_id, sequence = write.announces
                    announce[run_id] = max(sequence, announce.get(run_id, 0))
        return refused

    def _commit_one_by_one(self, batch: list[Write]) -> None:
        """A batch PostgreSQL refused for its data: keep every write it accepts, log the rest."""
        for write in batch:
            for attempt in range(1, 2 * len(_RETRY_DELAYS) + 1):
                try:
                    self._commit_batch([write])
                    break
                except psycopg.OperationalError:  # the connection went meanwhile: not the data
                    time.sleep(_retry_delay(attempt))
                except psycopg.Error as error:
                    log.error(
                        "PostgreSQL refused a write (%s): %s", write.sql.split(" ", 3)[:3], error
                    )
                    break


def _retry_delay(attempt: int) -> float:
    """Seconds before attempt `attempt + 1`, give or take a fifth: replicas that lost the server
    at the same instant do not all knock on the new one at the same instant."""
    return _RETRY_DELAYS[min(attempt, len(_RETRY_DELAYS)) - 1] * random.uniform(0.8, 1.2)


def _refused(cur: psycopg.Cursor[Any], writes: list[Write]) -> set[str]:
    """The runs of the fenced writes that returned no row (one result set per write)."""
    refused = set()
    for write in writes:
        if cur.fetchone() is None and write.fenced is not None:
            refused.add(write.fenced)
        cur.nextset()
    return refused
