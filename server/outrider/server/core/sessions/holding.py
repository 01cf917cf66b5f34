"""The sessions this process executes, from opening to their end: timers (idle timeout, maximum
life), ending (its active run cancelled first, then what its agent kept closed, then its last
event, with its session.ended notice), and letting go of those another replica ended meanwhile
(it took this one for lost)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator, Mapping

from outrider.server.core.errors import Unavailable
from outrider.server.core.runs.observing import kind_label
from outrider.server.core.runs.session_seats import Kept, SessionProfile
from outrider.server.core.sessions import records
from outrider.server.core.sessions.held import HeldSession
from outrider.server.core.sessions.orphans import Orphans, end_orphans
from outrider.server.core.storage import Store
from outrider.server.core.webhooks.notices import session_ended
from outrider.server.core.webhooks.outbox import Outbox
from outrider.server.telemetry import metrics
from outrider.v1 import session_pb2

log = logging.getLogger(__name__)

_SEAT_WAIT = 30.0  # seconds an ending waits for its cancelled run to give the seat back
_CLOSE_WAIT = 10.0  # seconds an ending waits for what the agent kept to close
IDLE = session_pb2.SESSION_END_REASON_IDLE
EXPIRED = session_pb2.SESSION_END_REASON_EXPIRED
LOST = session_pb2.SESSION_END_REASON_LOST

# (run id, message, principal id): cancels the active run of a session being ended
CancelRun = Callable[[str, str, str], None]


class Holding:
    def __init__(self, store: Store, cancel_run: CancelRun, outbox: Outbox) -> None:
        self._store = store
        self._cancel_run = cancel_run
        self._outbox = outbox
        self.here: dict[str, HeldSession] = {}
        self.opening: dict[str, asyncio.Event] = {}  # stored, their agent's keep opening here
        self._endings: dict[str, asyncio.Task[None]] = {}

    @contextlib.contextmanager
    def opening_here(self, session_id: str) -> Iterator[None]:
        """While a new session's record is stored and what it keeps still opens: a start naming
        it waits for it (`Seats.settle`) rather than taking it for another replica's."""
        opened = self.opening[session_id] = asyncio.Event()
        try:
            yield
        finally:
            self.opening.pop(session_id, None)
            opened.set()

    def open(
        self, record: session_pb2.Session, kept: Kept | None, profile: SessionProfile | None
    ) -> HeldSession:
        """Starts executing a new session: its timers run, its first event is written.
        `profile`: the one its browser was loaded from, at the version loaded."""
        live = HeldSession(record, kept, self._store, self._seat_free, profile=profile)
        self.here[live.id] = live
        metrics.session_live(kind_label(record.kind), +1)
        live.arm("expire", records.seconds_left(record), lambda: self._expired(live))
        where = kept.where() if kept is not None else ("", "")
        records.mark_page(record, where)
        records.mark_idle(record)
        live.append(session_pb2.SessionStarted(url=where[0], title=where[1]))
        self._arm_idle(live)
        return live

    def held_by(self, principal_id: str) -> int:
        return sum(1 for live in self.here.values() if live.record.created_by == principal_id)

    def lost(self, live: HeldSession, why: str) -> None:
        """What its agent kept is gone (the browser crashed): the session ends, lost."""
        self.end_soon(live, records.ending(LOST, f"the session's browser was lost: {why}"))

    # ending

    def end_soon(self, live: HeldSession, ended: session_pb2.SessionEnded) -> asyncio.Task[None]:
        """Ends the session in the background (once; a later call gets the first ending)."""
        if live.closing is None:
            live.closing = ended
            live.disarm_all()
            task = asyncio.get_running_loop().create_task(self._close(live))
            self._endings[live.id] = task
            task.add_done_callback(lambda _: self._endings.pop(live.id, None))
            return task
        return self._endings.get(live.id) or _done()

    async def end(self, live: HeldSession, ended: session_pb2.SessionEnded) -> None:
        await asyncio.shield(self.end_soon(live, ended))

    async def _close(self, live: HeldSession) -> None:
        assert live.closing is not None
        if live.run_id:
            self._cancel_run(live.run_id, live.closing.message, live.closing.ended_by)
            await self._seat_given_back(live)
        if live.kept is not None:
            try:
                async with asyncio.timeout(_CLOSE_WAIT):
                    await live.kept.aclose()
            except Exception:
                log.warning("what %s kept did not close cleanly", live.record.name, exc_info=True)
        with self._store.together():  # its last event and its notice commit together
            records.mark_ended(live.record, live.closing)
            live.append(live.closing)
            self._outbox.report(session_ended(live.record))
        self.here.pop(live.id, None)
        kind = kind_label(live.record.kind)
        metrics.session_live(kind, -1)
        metrics.session_ended(kind, records.END_REASONS[live.closing.reason])

    async def _seat_given_back(self, live: HeldSession) -> None:
        deadline = asyncio.get_running_loop().time() + _SEAT_WAIT
        while live.run_id:
            changed = live.changes.next()
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                log.warning("%s: run %s did not end; ending anyway", live.record.name, live.run_id)
                return
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await changed.wait()

    async def shutdown(self, message: str) -> None:
        """Ends every session here as lost (the process stops: so do their browsers)."""
        ending = records.ending(LOST, message)
        tasks = [self.end_soon(live, ending) for live in list(self.here.values())]
        if tasks:
            await asyncio.wait(tasks)

    def end_orphans(self, message: str, seen_before: Mapping[str, int] | None = None) -> Orphans:
        """Ends, as lost, the live sessions nobody holds any more (see `orphans`)."""
        held = set(self.here) | set(self.opening)
        return end_orphans(self._store, self._outbox, held, message, seen_before)

    async def drop_taken(self) -> None:
        """Lets go of the sessions held here that another replica ended meanwhile (it took
        this one for lost): their browsers close, and nothing more is written for them."""
        for live in list(self.here.values()):
            try:
                stored = self._store.get_session(live.id)
            except Unavailable:  # the next sweep looks again
                return
            if stored is not None and stored.state != records.ENDED:
                continue
            log.warning("%s was ended by another replica; letting go of it", live.record.name)
            live.disarm_all()
            self.here.pop(live.id, None)
            metrics.session_live(kind_label(live.record.kind), -1)
            if live.kept is not None:
                with contextlib.suppress(Exception):
                    await live.kept.aclose()

    # timers

    def _seat_free(self, live: HeldSession) -> None:
        if live.closing is None:
            self._arm_idle(live)

    def _arm_idle(self, live: HeldSession) -> None:
        seconds = records.idle_seconds(live.record)
        live.arm("idle", seconds, lambda: self._idle(live, seconds))

    def _idle(self, live: HeldSession, seconds: float) -> None:
        if not live.run_id:
            self.end_soon(live, records.ending(IDLE, f"no run started within {seconds:g} s"))

    def _expired(self, live: HeldSession) -> None:
        life = live.record.max_life.ToNanoseconds() / 1e9
        self.end_soon(live, records.ending(EXPIRED, f"it reached its maximum life of {life:g} s"))


def _done() -> asyncio.Task[None]:
    async def nothing() -> None:
        return None

    return asyncio.get_running_loop().create_task(nothing())
