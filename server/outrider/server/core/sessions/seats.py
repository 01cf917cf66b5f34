"""Runs taking a session's one seat (`runs/session_seats.SessionSeats`): the checks a start naming
a session passes, and the seat a run holds until it ends."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from outrider.server.core.errors import FailedPrecondition, InvalidArgument
from outrider.server.core.names import parse_session_name, session_id_from
from outrider.server.core.principals import Principal
from outrider.server.core.runs.session_seats import Seat, SessionElsewhere, SessionView
from outrider.server.core.sessions import records
from outrider.server.core.sessions.checks import KINDS
from outrider.server.core.sessions.held import HeldSession
from outrider.server.core.sessions.holding import Holding
from outrider.server.core.sessions.memory import remember
from outrider.server.core.storage import Store
from outrider.v1 import run_pb2, session_pb2

# (session id, tenant or None): the session, or NotFound
Find = Callable[[str, str | None], session_pb2.Session]
_SETTLE_WAIT = 10.0  # seconds a start waits for a winding-down run to give the seat back
_OPEN_WAIT = 60.0  # seconds a start waits for a session created a moment ago to be open here


class SessionSeat:
    """A run's place in a session here (`runs/session_seats.Seat`)."""

    def __init__(self, live: HeldSession, view: SessionView) -> None:
        self._live = live
        self._view = view

    @property
    def view(self) -> SessionView:
        return self._view

    def begin(self) -> str:
        self._live.begin()
        closing = self._live.closing
        return f"its session ended: {closing.message}" if closing is not None else ""

    def leave(self, run: run_pb2.Run | None) -> None:
        self._live.leave(run)


class Seats:
    def __init__(
        self,
        store: Store,
        holding: Holding,
        find: Find,
        memory_chars: int,
        winding_down: Callable[[str], bool],
    ) -> None:
        self._store = store
        self._winding_down = winding_down  # (run id): its outcome is out
        self._holding = holding
        self._find = find
        self._memory_chars = memory_chars

    async def settle(self, name: str) -> None:
        """Waits for a session created a moment ago to be open here, and for its winding-down
        run to give the seat back, before a start takes it."""
        try:
            session_id = parse_session_name(name)
        except InvalidArgument:  # the start's own checks say so, in the caller's terms
            return
        opening = self._holding.opening.get(session_id)
        if opening is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_OPEN_WAIT):
                    await opening.wait()
        live = self._holding.here.get(session_id)
        if live is None or not live.run_id or not self._winding_down(live.run_id):
            return
        deadline = asyncio.get_running_loop().time() + _SETTLE_WAIT
        while live.run_id and (left := deadline - asyncio.get_running_loop().time()) > 0:
            changed = live.changes.next()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await changed.wait()

    def elsewhere(self, name: str, kind: int, principal: Principal, field: str) -> str | None:
        held = self._checked(name, kind, principal, field)
        return None if held in self._holding.here or held in self._holding.opening else held

    def profile_of(self, name: str, kind: int, principal: Principal, field: str) -> str:
        return self._usable(name, kind, principal, field).profile

    def _checked(self, name: str, kind: int, principal: Principal, field: str) -> str:
        """The session's id, once it is known to be a live session of `kind` the principal
        sees."""
        return session_id_from(self._usable(name, kind, principal, field).name)

    def _usable(
        self, name: str, kind: int, principal: Principal, field: str
    ) -> session_pb2.Session:
        """The session's record, once it is known to be a live session of `kind` the
        principal sees."""
        session_id = parse_session_name(name, field)
        record = self._find(session_id, principal.tenant_filter)
        if record.kind != kind:
            raise InvalidArgument.single(
                field,
                f"{name} is a {KINDS[record.kind]} session; a {KINDS.get(kind, 'other')} run "
                "cannot run in it",
            )
        if record.state == records.ENDED:
            raise ended(name, record)
        return record

    def take(
        self,
        name: str,
        kind: int,
        run_id: str,
        principal: Principal,
        field: str,
        by_hand: bool = False,
    ) -> Seat:
        session_id = self._checked(name, kind, principal, field)
        live = self._holding.here.get(session_id)
        if live is None:
            raise SessionElsewhere(session_id)
        if live.closing is not None:
            raise ended(name, live.closing)
        controlled = live.record.state == records.CONTROLLED
        if live.run_id or controlled:
            active = f"its run {live.record.active_run or 'being started'} is active"
            if controlled:
                active = "a person has its browser"
            raise FailedPrecondition(
                f"{name} is busy: {active}; start the next run once it is idle",
                reason="SESSION_BUSY",
            )
        live.take(run_id, by_hand)
        memory = remember(self._store, session_id, self._memory_chars)
        return SessionSeat(live, live.view((memory.text, memory.earlier, memory.left_out)))

    def held_by(self, principal_id: str) -> int:
        return self._holding.held_by(principal_id)


def ended(name: str, how: session_pb2.Session | session_pb2.SessionEnded) -> FailedPrecondition:
    """The refusal of a start (or a takeover) in a session that ended, with its end's reason."""
    reason = how.end_reason if isinstance(how, session_pb2.Session) else how.reason
    message = how.end_message if isinstance(how, session_pb2.Session) else how.message
    return FailedPrecondition(
        f"{name} has ended ({message}); create a new session",
        reason=records.END_REASONS.get(reason, "SESSION_LOST"),
    )
