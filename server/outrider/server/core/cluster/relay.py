"""Calls for runs another replica executes (replicas sharing a PostgreSQL store).

A cancel or an answer must reach the agent, and only the replica executing the run holds it
(form values never touch the store); so does its live browser (screen frames, a person's
input), and a session's kept browser (a run's start in it, its end). Such calls are relayed to
that replica, whose address the store keeps by presence. The `Relay` itself is a transport (the
gRPC edge implements it); the core decides when to use it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Protocol, TypeVar

from google.protobuf import timestamp_pb2

from outrider.server.core.errors import Unavailable, Unimplemented
from outrider.server.core.names import run_name, session_name
from outrider.server.core.principals import Principal
from outrider.server.core.request_ids import Created, Started
from outrider.server.core.storage import ACTIVE_STATES, Store
from outrider.server.telemetry import metrics
from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import params_pb2, run_pb2, session_pb2, session_service_pb2

_T = TypeVar("_T")


class Relay(Protocol):
    """Makes a call on the replica at `address`, as `principal`; its errors come back as the
    core's errors (OutriderError), a replica that cannot be reached as Unavailable."""

    async def submit_input(
        self,
        address: str,
        interaction_id: str,
        values: list[tuple[str, str]],
        cancelled: bool,
        principal: Principal,
    ) -> ip.Interaction: ...

    async def decide_approval(
        self,
        address: str,
        interaction_id: str,
        answer: tuple[int, int, str],
        principal: Principal,
    ) -> ip.Interaction: ...

    async def cancel(
        self, address: str, run_id: str, reason: str, principal: Principal
    ) -> run_pb2.Run: ...

    async def start(
        self,
        address: str,
        params: params_pb2.AutomateParams | params_pb2.ResearchParams,
        options: params_pb2.RunOptions,
        principal: Principal,
        request_id: str,
    ) -> Started: ...

    def watch_screen(
        self, address: str, run_id: str, size: tuple[int, int], principal: Principal
    ) -> AsyncGenerator[bcs.WatchScreenResponse, None]: ...

    async def take_over(
        self, address: str, run_id: str, force: bool, principal: Principal
    ) -> ip.Interaction: ...

    async def forward_input(
        self, address: str, run_id: str, events: Sequence[bcs.InputEvent], principal: Principal
    ) -> timestamp_pb2.Timestamp: ...

    async def hand_back(
        self, address: str, run_id: str, takeover: tuple[str, str], principal: Principal
    ) -> ip.Interaction:
        """`takeover` = (takeover id or "", note)."""

    async def decline_takeover(
        self, address: str, run_id: str, takeover: tuple[str, str], principal: Principal
    ) -> ip.Interaction:
        """`takeover` = (takeover id or "", reason)."""

    async def create_session(
        self, address: str, request: session_service_pb2.CreateSessionRequest, principal: Principal
    ) -> Created:
        """Creates a session on a worker replica (from an API-only one): it holds the session."""

    async def end_session(
        self, address: str, session_id: str, reason: str, principal: Principal
    ) -> session_pb2.Session:
        """Ends a session on the replica that holds it (core/sessions/)."""


class ExecutedElsewhere(Unimplemented):
    """The local path's verdict: the run is active, and another replica executes it."""

    def __init__(self, run_id: str, interaction: str = "") -> None:
        what = f"{interaction} belongs to {run_name(run_id)}, which" if interaction else ""
        super().__init__(
            f"{what or run_name(run_id) + ' is a run'} another replica executes; set the same "
            "OUTRIDER_CLUSTER_SECRET on every replica so that any of them relays the call there",
            reason="RUN_ON_ANOTHER_REPLICA",
        )
        self.run_id = run_id


def relay_for(relay: Relay | None, elsewhere: ExecutedElsewhere, principal: Principal) -> Relay:
    """The relay for a call the local path refused with `elsewhere`; errors say why none."""
    if relay is None:
        raise elsewhere
    if principal.relayed:  # it was relayed here because this replica executed the run
        raise Unavailable(
            f"{run_name(elsewhere.run_id)} is no longer executed by the replica this call was "
            "relayed to; try again",
            reason="RUN_MOVED",
        )
    return relay


async def executor_address(store: Store, run_id: str, patience: float, call: str) -> str | None:
    """The address of the replica executing the run; None when the run ended meanwhile (the
    local path then answers). Waits up to `patience` seconds for the executor's presence: after
    a database restart or a dropped session a live executor takes it back within a second, and
    a dead one's run is taken over by another replica, whose address then answers. Only then is
    the executor called lost (`call` names the relayed call in the failure count)."""
    address = await _patiently(lambda: _executor_or_end(store, run_id), patience)
    if address is None:
        metrics.relay_failed(call, "EXECUTOR_LOST")
        raise Unavailable(
            f"the replica executing {run_name(run_id)} is gone and no other replica took the "
            f"run over within {patience:g} s; another replica takes it over shortly (failover)",
            reason="EXECUTOR_LOST",
        )
    return None if address == _ENDED else address


async def session_executor(store: Store, session_id: str, patience: float) -> str | None:
    """The address of the replica holding a live session (waiting for its presence as
    `executor_address` does); None once the session ended meanwhile. A holder that stays gone is
    lost with the session (a sweep ends it: SESSION_LOST)."""

    def look() -> str | None:
        address = store.session_executor(session_id)
        if address is not None:
            return address
        session = store.get_session(session_id)
        live = session is not None and session.state != session_pb2.SESSION_STATE_ENDED
        return None if live else _ENDED

    address = await _patiently(look, patience)
    if address is None:
        metrics.relay_failed("session", "EXECUTOR_LOST")
        raise Unavailable(
            f"the replica holding {session_name(session_id)} is gone; the session is lost with "
            "it and ends shortly (SESSION_LOST)",
            reason="EXECUTOR_LOST",
        )
    return None if address == _ENDED else address


async def worker_address(store: Store, patience: float) -> str:
    """Where an API-only replica sends a new run: the least busy live worker (waiting up to
    `patience` seconds for one to take its presence back, e.g. after a database restart)."""
    address = await _patiently(store.pick_worker, patience)
    if address is None:
        metrics.relay_failed("start", "NO_WORKER")
        raise Unavailable(
            "no worker replica is up to execute the run (OUTRIDER_ROLE=worker or all)",
            reason="NO_WORKER",
        )
    return address


async def through_outage(call: Callable[[], Awaitable[_T]], patience: float) -> _T:
    """`call()`, tried again while it fails because a store cannot be reached (STORE_UNAVAILABLE,
    here or on the replica it was relayed to), for up to `patience` seconds: an answer or a
    cancel given during a database restart waits for it rather than being refused. Safe for
    answers and cancels: neither takes effect before its reads succeed."""
    deadline = time.monotonic() + patience
    while True:
        try:
            return await call()
        except Unavailable as error:
            if error.reason != "STORE_UNAVAILABLE" or time.monotonic() >= deadline:
                raise
        await asyncio.sleep(_POLL * 2)


_ENDED = "-"  # not an address: the run is no longer active
_POLL = 0.1  # seconds between two looks while waiting for a presence


def _executor_or_end(store: Store, run_id: str) -> str | None:
    address = store.executor_address(run_id)
    if address is not None:
        return address
    run = store.get_run(run_id)
    return _ENDED if run is None or run.state not in ACTIVE_STATES else None


async def _patiently(look: Callable[[], str | None], patience: float) -> str | None:
    """`look()` until it finds something or `patience` seconds passed; a store that cannot
    answer meanwhile counts as not found yet (its last error is raised at the end)."""
    deadline = time.monotonic() + patience
    while True:
        failure: Unavailable | None = None
        try:
            found = look()
        except Unavailable as error:
            found, failure = None, error
        if found is not None:
            return found
        if time.monotonic() >= deadline:
            if failure is not None:
                raise failure
            return None
        await asyncio.sleep(_POLL)
