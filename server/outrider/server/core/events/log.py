"""Per-run event logs: gapless sequences, persisted first, then fanned out to live watchers.

Live watchers get an event once the store says it is committed (`Store.when_committed`): on
SQLite, after the commit that ends the loop iteration it was appended in; on PostgreSQL, once the
write-behind thread committed it. So an event a client was sent survives a crash of this process.
Appends committed together are fanned out together.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import weakref
from collections.abc import AsyncGenerator, Callable, Iterator

from google.protobuf.message import Message

from outrider.server.core import clock
from outrider.server.core.errors import OutOfRange, Unavailable
from outrider.server.core.events.names import event_name
from outrider.server.core.events.outages import Outage, check_outage
from outrider.server.core.events.subscription import LiveRun, Signal, Subscription
from outrider.server.core.names import run_name
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.storage import ACTIVE_STATES, Store
from outrider.server.core.storage.contract import EventFeed
from outrider.server.telemetry import metrics
from outrider.v1 import run_event_pb2

_CATCH_UP_PAGE = 256

# RunEvent's payload arm for each payload message type, read from the contract itself.
_PAYLOAD_ARMS = {
    field.message_type.full_name: field.name  # type: ignore[union-attr]
    for field in run_event_pb2.RunEvent.DESCRIPTOR.oneofs_by_name["payload"].fields
}

WatchItem = run_event_pb2.RunEvent | run_event_pb2.Heartbeat
WatchBatch = list[run_event_pb2.RunEvent] | run_event_pb2.Heartbeat


class EventLog:
    """Appends events with sequence 1, 2, 3, ... and serves "everything after N, then live"."""

    def __init__(self, store: Store, buffer_limit: int, outage_bound: float = 10.0) -> None:
        self._store = store
        self._buffer_limit = buffer_limit
        self._outage_bound = outage_bound  # seconds a stream waits out a store outage
        self._live: dict[str, LiveRun] = {}
        self._redactors: dict[str, Redactor] = {}
        self._watching = 0
        self._nobody_watching = asyncio.Event()
        self._nobody_watching.set()
        # appended, not yet handed to watchers: (run, event, the store's write mark after it)
        self._unpublished: list[tuple[LiveRun, run_event_pb2.RunEvent, int]] = []

    def open(self, run_id: str, last_sequence: int = 0, redactor: Redactor | None = None) -> None:
        """Opens a run's log; every event appended to it passes `redactor` first."""
        self._live[run_id] = LiveRun(run_id, last_sequence)
        if redactor is not None:
            self._redactors[run_id] = redactor

    def redact(self, run_id: str, message: Message) -> None:
        """Scrubs the run's secrets from `message` in place (before it is stored anywhere)."""
        redactor = self._redactors.get(run_id)
        if redactor is not None:
            redactor.message(message)

    def close(self, run_id: str) -> None:
        """No more appends; its watchers end once they got every event (after the commit)."""
        self._redactors.pop(run_id, None)
        live = self._live.pop(run_id, None)
        if live is not None:
            self._store.when_committed(lambda: self._close_when_published(live))

    def _close_when_published(self, live: LiveRun) -> None:
        """Ends the run's watchers once its last events were handed to them."""
        if any(entry[0] is live for entry in self._unpublished):
            self._store.when_committed(lambda: self._close_when_published(live))
        else:
            live.close()

    def is_open(self, run_id: str) -> bool:
        return run_id in self._live

    def last_sequence(self, run_id: str) -> int | None:
        live = self._live.get(run_id)
        return live.last_sequence if live else None

    def watcher_count(self, run_id: str) -> int:
        live = self._live.get(run_id)
        return live.watcher_count if live else 0

    def append(self, run_id: str, payload: Message, artifact: str = "") -> run_event_pb2.RunEvent:
        """Persists the next event of an open run and hands it to its watchers."""
        live = self._live[run_id]
        self.redact(run_id, payload)
        event = run_event_pb2.RunEvent(
            run=run_name(run_id), sequence=live.last_sequence + 1, artifact=artifact
        )
        clock.set_timestamp(event.time, clock.now_us())
        getattr(event, _PAYLOAD_ARMS[payload.DESCRIPTOR.full_name]).CopyFrom(payload)
        live.last_sequence = event.sequence
        self._store.append_event(run_id, event)
        self._unpublished.append((live, event, self._store.commit_marks()[0]))
        if len(self._unpublished) == 1:  # the first since the last fan-out
            self._store.when_committed(self._publish)
        return event

    def _publish(self) -> None:
        """Hands the committed events to their runs' watchers, in the order they were appended,
        each run's consecutive events in one list (one wake-up per watcher)."""
        committed = self._store.commit_marks()[1]
        ready = self._unpublished
        if ready and ready[-1][2] > committed:  # appended after this fan-out was asked for
            done = sum(1 for entry in ready if entry[2] <= committed)
            ready, self._unpublished = ready[:done], ready[done:]
            self._store.when_committed(self._publish)
        else:
            self._unpublished = []
        for live, group in itertools.groupby(ready, key=lambda entry: entry[0]):
            events = [event for _, event, _ in group]
            if self._store.fenced_out(live.run_id):
                # Another replica took the run over and refused these: its watchers here go
                # on from the store, where the new owner's events are (see _follow).
                live.close()
                continue
            live.publish(events)

    def check_cursor(self, run_id: str, after: int, last_sequence: int) -> None:
        if after > last_sequence:
            raise OutOfRange(
                f"after_sequence {after} is beyond the newest event {last_sequence} of "
                f"{run_name(run_id)}",
                reason="SEQUENCE_OUT_OF_RANGE",
            )

    def follow_batches(
        self, run_id: str, after: int, heartbeat_interval: float
    ) -> AsyncGenerator[WatchBatch, None]:
        """Every event after `after` exactly once, in order, then live ones until the run ends.

        Events come in the lists they became available in (a page of history, or what the run
        emitted since the watcher last looked), so an edge can write several at once. Heartbeats
        are yielded while the run is quiet. Store reads and subscribing happen without an await in
        between, so no event can fall between history and the live feed.

        The watcher counts from this call, not from its first item, so a shutdown also waits
        for one that connected but has not read yet (until the generator ends or is dropped).
        """
        release = self._count_watcher()
        followed = self._counted(release, run_id, after, heartbeat_interval)
        weakref.finalize(followed, release)
        return followed

    def _count_watcher(self) -> Callable[[], None]:
        metrics.watchers(+1)
        self._watching += 1
        self._nobody_watching.clear()
        released = False

        def release() -> None:
            nonlocal released
            if released:
                return
            released = True
            metrics.watchers(-1)
            self._watching -= 1
            if not self._watching:
                self._nobody_watching.set()

        return release

    async def _counted(
        self, release: Callable[[], None], run_id: str, after: int, heartbeat_interval: float
    ) -> AsyncGenerator[WatchBatch, None]:
        try:
            async with contextlib.aclosing(
                self._follow(run_id, after, heartbeat_interval)
            ) as items:
                async for item in items:
                    yield item
        finally:
            release()

    @contextlib.contextmanager
    def watcher(self) -> Iterator[None]:
        """Counts as a watcher for the block: an edge that still owes its caller something after
        a run's ending (the MCP edge reads the ended run for its result) holds the shutdown, and
        the store, until then, as an open stream does."""
        release = self._count_watcher()
        try:
            yield
        finally:
            release()

    @property
    def watching(self) -> int:
        """Watchers of any run, from `follow_batches` until their generator ends."""
        return self._watching

    async def nobody_watching(self) -> None:
        """Returns once no watcher is left."""
        await self._nobody_watching.wait()

    async def _follow(
        self, run_id: str, after: int, heartbeat_interval: float
    ) -> AsyncGenerator[WatchBatch, None]:
        """From this process while it executes the run (or the run ended), from the store's
        feed while another process executes it: also from the moment another replica took over
        a run this one was executing (its refused events were never sent)."""
        cursor = after
        if not self._executed_elsewhere(run_id):
            async with contextlib.aclosing(
                self._follow_here(run_id, after, heartbeat_interval)
            ) as here:
                async for batch in here:
                    if isinstance(batch, list):
                        cursor = batch[-1].sequence
                    yield batch
            if not (self._store.fenced_out(run_id) and self._executed_elsewhere(run_id)):
                return  # the run ended here
        feed = self._store.event_feed()
        assert feed is not None  # only a shared store has runs executed elsewhere
        async with contextlib.aclosing(
            self._follow_remote(feed, run_id, cursor, heartbeat_interval)
        ) as remote:
            async for batch in remote:
                yield batch

    async def _follow_here(
        self, run_id: str, after: int, heartbeat_interval: float
    ) -> AsyncGenerator[WatchBatch, None]:
        """History from the store, then this process's live events; ends with the run, or
        when another replica takes it over. Once it has sent something, it waits a store outage
        out like a stream of a run executed elsewhere (see core/events/outages.py): the store is
        read again while it catches up and when its subscription falls behind."""
        cursor, sent = after, False
        # A finished run's last sequence, known before replaying it: if the run is deleted
        # meanwhile, what was not delivered yet is missing, not "the end".
        final = None if run_id in self._live else self._final_sequence(run_id)
        outage = Outage(self._store, self._outage_bound, heartbeat_interval)
        while True:
            try:
                step = self._read_here(run_id, cursor, final)
            except Unavailable:
                if not sent:
                    raise  # a new stream is refused at once
                if outage.failed():
                    yield self._heartbeat(cursor)
                await outage.pause()
                continue
            outage.over()
            if step is None:
                return
            if isinstance(step, list):
                yield step
                cursor, sent = step[-1].sequence, True
                continue
            subscription = step.subscribe(self._buffer_limit)  # no await since the read
            try:
                drain = self._drain(subscription, step, cursor, heartbeat_interval)
                async with contextlib.aclosing(drain) as batches:
                    async for batch in batches:
                        yield batch
                        sent = True
                        cursor = batch[-1].sequence if isinstance(batch, list) else cursor
            finally:
                step.unsubscribe(subscription)
            if not subscription.lagging and not self._store.fenced_out(run_id):
                return

    def _read_here(
        self, run_id: str, cursor: int, final: int | None
    ) -> list[run_event_pb2.RunEvent] | LiveRun | None:
        """The next page of history; without one, the run's live end to subscribe to, or None
        once the run ended here and every event was delivered."""
        page = self._store.events_after(run_id, cursor, _CATCH_UP_PAGE)
        if page:
            return page
        live = self._live.get(run_id)
        if live is not None and not self._store.fenced_out(run_id):
            return live
        final = self._final_sequence(run_id) if final is None else final
        self._check_delivered(run_id, cursor, final)
        return None

    def _executed_elsewhere(self, run_id: str) -> bool:
        """Another process executes the run: a shared store holds it active, and this process
        does not execute it (or lost it to another replica)."""
        return (
            self._store.event_feed() is not None
            and not self._executing(run_id)
            and self._runs_elsewhere(run_id)
        )

    def _executing(self, run_id: str) -> bool:
        """This process writes the run's events (it has not lost it to another replica)."""
        return run_id in self._live and not self._store.fenced_out(run_id)

    def _runs_elsewhere(self, run_id: str) -> bool:
        """Active in the shared store although not here: another process executes it."""
        run = self._store.get_run(run_id)
        return run is not None and run.state in ACTIVE_STATES

    async def _follow_remote(
        self, feed: EventFeed, run_id: str, after: int, heartbeat_interval: float
    ) -> AsyncGenerator[WatchBatch, None]:
        """A run another process executes: subscribe first, then read the rows after the cursor
        on every wake-up, so nothing committed meanwhile is missed and nothing is sent twice.
        Its events are committed before (or with) the row that ends it."""
        cursor, ended = after, None
        watch = feed.watch(run_id)
        outage = Outage(self._store, self._outage_bound, heartbeat_interval)
        try:
            while True:
                try:
                    page = self._store.events_after(run_id, cursor, _CATCH_UP_PAGE)
                    run = None if page or ended is not None else self._store.get_run(run_id)
                except Unavailable:  # waits it out (see events/outages.py), or ends past its bound
                    if outage.failed():
                        yield self._heartbeat(cursor)
                    await outage.pause()
                    continue
                outage.over()
                if page:
                    yield page
                    cursor = page[-1].sequence
                    if len(page) == _CATCH_UP_PAGE or ended is not None:
                        continue
                    if event_name(page[-1]) == "done":  # the last event: go and see the end
                        continue
                    # Caught up with what was committed: wait for the next notification (the
                    # row that ends the run sends one too) rather than read again at once.
                    if not await watch.wait(heartbeat_interval):
                        yield self._heartbeat(cursor)
                    continue
                if ended is not None:  # read after the end was seen: nothing more will come
                    self._check_delivered(run_id, cursor, ended)
                    return
                if run is None:
                    self._check_delivered(run_id, cursor, None)
                elif run.state not in ACTIVE_STATES:
                    # The two reads are not one snapshot: read once more, now that the end is.
                    ended = run.last_sequence
                elif not await watch.wait(heartbeat_interval):
                    yield self._heartbeat(cursor)
        finally:
            watch.close()

    def _heartbeat(self, last_sequence: int) -> run_event_pb2.Heartbeat:
        return run_event_pb2.Heartbeat(
            time=clock.timestamp(clock.now_us()), last_sequence=last_sequence
        )

    def _final_sequence(self, run_id: str) -> int | None:
        """The last sequence of a finished run; None when the run no longer exists."""
        run = self._store.get_run(run_id)
        return None if run is None else run.last_sequence

    def _check_delivered(self, run_id: str, cursor: int, final: int | None) -> None:
        """A run deleted (by a caller or retention) while a watcher was replaying it: the rest
        of its events are gone, which the watcher must hear rather than a quiet end. A run that
        still exists but whose last events did not decode (skipped, logged) just ends."""
        if final is None or (cursor < final and self._store.get_run(run_id) is None):
            raise OutOfRange(
                f"the events of {run_name(run_id)} after sequence {cursor} are no longer kept: "
                "the run was deleted",
                reason="RUN_DELETED",
            )

    async def _drain(
        self, subscription: Subscription, live: LiveRun, after: int, heartbeat_interval: float
    ) -> AsyncGenerator[WatchBatch, None]:
        """Live events after `after` (the first ones may be in the history read already), and
        heartbeats while the run is quiet, until the subscription falls behind or closes."""
        while True:
            batch = await subscription.next_batch(heartbeat_interval)
            if batch is Signal.IDLE:
                check_outage(self._store, self._outage_bound)  # the same bound as elsewhere
                yield run_event_pb2.Heartbeat(
                    time=clock.timestamp(clock.now_us()), last_sequence=live.last_sequence
                )
            elif isinstance(batch, Signal):
                return
            elif batch[-1].sequence > after:
                batch = [event for event in batch if event.sequence > after]
                after = batch[-1].sequence
                yield batch
