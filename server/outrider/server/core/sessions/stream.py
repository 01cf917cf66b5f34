"""A session's event stream: its own events and each of its runs' events in order, numbered
1, 2, 3, ... across them, from any sequence on, then live until the session ends.

Only the session's own events are stored as such; a run's events stay in the run's log, and the
store says where each run's events start in the session's numbering (`SessionRunRow.base`). So
a run's events reach a session's watchers exactly as they reach the run's own (history, then
live, from any replica, through store outages), each wrapped with its session sequence and its
run as the invocation.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable
from typing import Protocol

from outrider.server.core import clock
from outrider.server.core.errors import NotFound, OutOfRange
from outrider.server.core.events.log import WatchBatch
from outrider.server.core.names import session_name
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.runs.stream_checks import Reauthenticate, current_principal
from outrider.server.core.sessions.held import HeldSession
from outrider.server.core.sessions.records import ENDED
from outrider.server.core.storage import Store
from outrider.server.core.storage.session_contract import SessionRunRow
from outrider.v1 import run_event_pb2, session_pb2

_PAGE = 256
SessionBatch = list[session_pb2.SessionEvent] | run_event_pb2.Heartbeat
WatchRun = Callable[[str, int, Principal], AsyncGenerator[WatchBatch, None]]


class Wake(Protocol):
    async def wait(self, idle_after: float) -> bool: ...

    def close(self) -> None: ...


class SessionStream:
    def __init__(
        self,
        store: Store,
        watch_run: WatchRun,
        live: Callable[[str], HeldSession | None],
        heartbeat_interval: float,
    ) -> None:
        self._store = store
        self._watch_run = watch_run
        self._live = live
        self._heartbeat = heartbeat_interval

    async def follow(
        self, session_id: str, after: int, last: int, principal: Principal
    ) -> AsyncGenerator[SessionBatch, None]:
        """Events after `after` (refused beyond `last`, the session's newest), then live ones."""
        if after > last:
            raise OutOfRange(
                f"after_sequence {after} is beyond the newest event {last} of "
                f"{session_name(session_id)}",
                reason="SEQUENCE_OUT_OF_RANGE",
            )
        cursor = after
        followed: set[str] = set()
        while True:
            wake = self._wake(session_id)
            try:
                own = self._store.session_events_after(session_id, cursor, _PAGE)
                if own and own[0].sequence == cursor + 1:
                    batch = _contiguous(own, cursor)
                    yield batch
                    cursor = batch[-1].sequence
                    if batch[-1].HasField("session_ended"):
                        return
                    continue
                row = _run_at(self._store.session_runs(session_id), cursor, followed)
                if row is not None:
                    followed.add(row.run_id)
                    run = self._run(session_id, row, cursor, principal)
                    async with contextlib.aclosing(run):
                        async for item in run:
                            yield item
                            if isinstance(item, list):
                                cursor = item[-1].sequence
                    continue
                if self._ended(session_id, cursor):
                    return
                if not await wake.wait(self._heartbeat):
                    yield run_event_pb2.Heartbeat(
                        time=clock.timestamp(clock.now_us()), last_sequence=cursor
                    )
            finally:
                wake.close()

    async def _run(
        self, session_id: str, row: SessionRunRow, cursor: int, principal: Principal
    ) -> AsyncGenerator[SessionBatch, None]:
        """The run's events after the session's `cursor`, as the session's."""
        name = session_name(session_id)
        batches = self._watch_run(row.run_id, cursor - row.base, principal)
        async with contextlib.aclosing(batches):
            async for batch in batches:
                if isinstance(batch, run_event_pb2.Heartbeat):
                    beat = run_event_pb2.Heartbeat(last_sequence=row.base + batch.last_sequence)
                    beat.time.CopyFrom(batch.time)
                    yield beat
                    continue
                yield [_wrapped(name, row.base, event) for event in batch]

    def _ended(self, session_id: str, cursor: int) -> bool:
        record = self._store.get_session(session_id)
        if record is None:
            raise NotFound(f"{session_name(session_id)} does not exist")
        return record.state == ENDED and cursor >= record.last_sequence

    def _wake(self, session_id: str) -> Wake:
        live = self._live(session_id)
        if live is not None:
            return _LocalWake(live)
        feed = self._store.event_feed()
        return feed.watch(session_id) if feed is not None else _Poll()


async def rechecked(
    batches: AsyncGenerator[SessionBatch, None],
    created_by: str,
    admitted: Principal,
    reauthenticate: Reauthenticate | None,
) -> AsyncGenerator[SessionBatch, None]:
    """`batches`, each delivered only while the caller's credential still holds (and may still
    read the session), as a run's stream does (runs/stream_checks.py)."""
    async with contextlib.aclosing(batches):
        async for batch in batches:
            principal = current_principal(admitted, reauthenticate)
            if created_by != principal.id:
                principal.require(Scope.RUNS_READ)
            yield batch


def _contiguous(
    events: list[session_pb2.SessionEvent], cursor: int
) -> list[session_pb2.SessionEvent]:
    batch = []
    for event in events:
        if event.sequence != cursor + 1:
            break
        batch.append(event)
        cursor = event.sequence
    return batch


def _run_at(rows: list[SessionRunRow], cursor: int, followed: set[str]) -> SessionRunRow | None:
    """The run whose events come after the session's `cursor` (not one already followed to its
    end: its final sequence may not be recorded yet)."""
    for row in rows:
        inside = row.final is None or cursor < row.base + row.final
        if row.base <= cursor and inside and row.run_id not in followed:
            return row
    return None


def _wrapped(name: str, base: int, event: run_event_pb2.RunEvent) -> session_pb2.SessionEvent:
    wrapped = session_pb2.SessionEvent(
        session=name, sequence=base + event.sequence, invocation=event.run
    )
    wrapped.time.CopyFrom(event.time)
    wrapped.run_event.CopyFrom(event)
    return wrapped


class _LocalWake:
    def __init__(self, live: HeldSession) -> None:
        self._event = live.changes.next()

    async def wait(self, idle_after: float) -> bool:
        try:
            async with asyncio.timeout(idle_after):
                await self._event.wait()
        except TimeoutError:
            return False
        return True

    def close(self) -> None:
        pass


class _Poll:
    """No wake-ups to be had (a session nobody here executes, on a store nobody shares): look
    again after a while."""

    async def wait(self, idle_after: float) -> bool:
        await asyncio.sleep(min(idle_after, 1.0))
        return True

    def close(self) -> None:
        pass
