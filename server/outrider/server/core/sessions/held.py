"""A session this process executes: its record, what its agent keeps, its one seat, its timers and
its own events (the session's log: its events' sequence numbers go on across its runs')."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from google.protobuf.message import Message

from outrider.server.core import clock
from outrider.server.core.names import run_name, session_id_from
from outrider.server.core.runs.session_seats import Kept, SessionProfile, SessionView
from outrider.server.core.sessions import records
from outrider.server.core.storage import Store
from outrider.server.core.storage.session_contract import SessionRunRow
from outrider.v1 import run_pb2, session_pb2

# SessionEvent's payload arm for each of the session's own event types.
_ARMS = {
    f.message_type.full_name: f.name  # type: ignore[union-attr]
    for f in session_pb2.SessionEvent.DESCRIPTOR.oneofs_by_name["payload"].fields
}


class Changes:
    """Wake-ups for the session's watchers here: a watcher takes `next()` before it reads the
    store and waits on it after, so nothing that happens in between goes unheard."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def next(self) -> asyncio.Event:
        return self._event

    def notify(self) -> None:
        self._event.set()
        self._event = asyncio.Event()


@dataclass
class HeldSession:
    record: session_pb2.Session
    kept: Kept | None
    store: Store
    # told when the seat is free again (the run ended, or its start was refused)
    on_free: Callable[[HeldSession], None]
    changes: Changes = field(default_factory=Changes)
    profile: SessionProfile | None = None  # the profile its browser started from
    run_id: str = ""  # the run that has the seat
    base: int = 0  # where that run's events start in the session's stream, once it began
    begun: bool = False
    by_hand: bool = False  # that run is a person's (the session CONTROLLED while it runs)
    closing: session_pb2.SessionEnded | None = None  # set once its end began
    timers: dict[str, asyncio.TimerHandle] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return session_id_from(self.record.name)

    # its own events

    def append(self, payload: Message) -> session_pb2.SessionEvent:
        event = session_pb2.SessionEvent(
            session=self.record.name, sequence=self.record.last_sequence + 1
        )
        clock.set_timestamp(event.time, clock.now_us())
        getattr(event, _ARMS[payload.DESCRIPTOR.full_name]).CopyFrom(payload)
        self.store.append_session_event(self.id, event)
        self.record.last_sequence = event.sequence
        self.save()
        return event

    def save(self) -> None:
        self.store.save_session(self.record, self.id)
        self.changes.notify()

    # the seat

    def take(self, run_id: str, by_hand: bool = False) -> None:
        self.run_id, self.begun, self.by_hand = run_id, False, by_hand
        self.disarm("idle")

    def begin(self) -> None:
        """The run's record is saved: its events follow the session's newest one."""
        self.base, self.begun = self.record.last_sequence, True
        self.store.add_session_run(self.id, SessionRunRow(self.run_id, self.base))
        state = records.CONTROLLED if self.by_hand else records.RUNNING
        records.mark_running(self.record, run_name(self.run_id), state)
        self.save()

    def leave(self, run: run_pb2.Run | None) -> None:
        """The run ended (as saved), or its start was refused or moved away (None)."""
        if run is not None and self.begun:
            where = self.kept.where() if self.kept is not None else ("", "")
            row = SessionRunRow(self.run_id, self.base, run.last_sequence, *where)
            self.store.finish_session_run(self.id, row)
            self.record.last_sequence = self.base + run.last_sequence
            records.mark_page(self.record, where)
        self.run_id, self.begun = "", False
        if self.record.state != records.ENDED:
            records.mark_idle(self.record)
            self.save()
        self.on_free(self)

    def last_sequence(self, run_last: int | None) -> int:
        """Its newest event's sequence, given its active run's newest (None: none active)."""
        if self.begun and run_last is not None:
            return self.base + run_last
        return self.record.last_sequence

    def view(self, memory: tuple[str, int, int]) -> SessionView:
        text, earlier, left_out = memory
        return SessionView(self.record.name, self.kept, text, earlier, left_out, self.profile)

    # timers

    def arm(self, timer: str, seconds: float, fire: Callable[[], None]) -> None:
        self.disarm(timer)
        loop = asyncio.get_running_loop()
        self.timers[timer] = loop.call_later(max(seconds, 0.0), fire)

    def disarm(self, timer: str) -> None:
        handle = self.timers.pop(timer, None)
        if handle is not None:
            handle.cancel()

    def disarm_all(self) -> None:
        for timer in list(self.timers):
            self.disarm(timer)
