"""The session manager: creates sessions, serves them (get, list, their event streams), ends them,
and gives runs their seats (see `seats`). The replica that creates a session executes it: it
holds what the session's agent keeps (a live browser context) until the session ends.

Every call takes the calling principal and reaches only sessions of its tenant (an admin reaches
all); another tenant's session is NOT_FOUND, byte for byte like a missing one. Scopes are the
runs': creating needs runs.start, reading runs.read (a creator may always read its own), ending
runs.cancel.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Mapping

from google.protobuf import duration_pb2

from outrider.server.core import paging, validation
from outrider.server.core.cluster.failover import OrphanKey
from outrider.server.core.cluster.presence import presence_patience
from outrider.server.core.cluster.relay import Relay, session_executor, worker_address
from outrider.server.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    OutriderError,
    ResourceExhausted,
    Unavailable,
)
from outrider.server.core.names import new_id, session_id_from, session_name
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.request_ids import Created, Started
from outrider.server.core.runs.agent import AgentRegistry
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.runs.session_seats import (
    Kept,
    SessionAgent,
    SessionElsewhere,
    SessionProfile,
)
from outrider.server.core.runs.stream_checks import Reauthenticate
from outrider.server.core.sessions import records
from outrider.server.core.sessions.checks import SessionSpec, check_create
from outrider.server.core.sessions.create_keys import create_key, create_request, replayed_session
from outrider.server.core.sessions.hands_on import hands_on_spec
from outrider.server.core.sessions.holding import LOST, Holding
from outrider.server.core.sessions.seats import Seats
from outrider.server.core.sessions.stream import SessionBatch, SessionStream, rechecked
from outrider.server.core.storage import Store
from outrider.server.core.storage.contract import REQUEST_ID_TAKEN, StartKey
from outrider.server.core.storage.session_contract import (
    LIVE_SESSION_STATES,
    TENANT_SESSIONS_FULL,
    KeyedSession,
)
from outrider.server.core.vault.opened_profile import OpenedProfile
from outrider.server.core.vault.profile_state import StorageState
from outrider.server.core.vault.profiles import profile_row
from outrider.server.settings import Settings
from outrider.v1 import run_pb2, session_pb2


class SessionManager:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        runs: RunManager,
        agents: AgentRegistry,
        relay: Relay | None = None,
    ) -> None:
        self._settings = settings
        self._relay = relay
        self._patience = presence_patience(settings.failover_interval)
        self._limits = settings.sessions
        self._store = store
        self._runs = runs
        self._agents = agents
        self._opening = 0  # sessions being created here (their browsers opening)
        self._orphans_seen: dict[str, int] = {}  # orphaned sessions -> sweeps in a row seen
        self.accepting = True
        self._holding = Holding(store, runs.cancel_for_session, runs.webhooks.outbox)
        self._stream = SessionStream(
            store, runs.watch_batches, self._holding.here.get, settings.heartbeat_interval
        )
        seats = Seats(
            store, self._holding, self._find, self._limits.memory_chars, runs.winding_down
        )
        runs.seat_sessions(seats)

    # lifecycle

    def recover(self) -> int:
        """Ends, as lost, the sessions a previous process (or a lost replica) left live: what
        they kept died with it. Call it after the runs' own recovery."""
        return self._holding.end_orphans("the process holding the session stopped").ended

    def sweep(self, seen_before: Mapping[OrphanKey, int]) -> tuple[int, dict[OrphanKey, int]]:
        """A failover sweep (cluster/failover.py): the runs' (runs/adoption.py), then the
        sessions' own: those of a replica that died end as lost once their run ended."""
        taken, seen = self._runs.sweep_orphans(seen_before)
        lost = "the replica holding the session was lost, and the session's browser with it"
        self._orphans_seen = self._holding.end_orphans(lost, self._orphans_seen).seen
        asyncio.get_running_loop().create_task(self._holding.drop_taken())
        return taken, seen

    async def shutdown(self) -> None:
        """Refuses new sessions and ends every one here: their browsers go with the process."""
        self.accepting = False
        await self._holding.shutdown("the server executing the session shut down")

    # creating

    async def create(
        self,
        kind: int,
        start_url: str,
        durations: tuple[duration_pb2.Duration | None, duration_pb2.Duration | None],
        labels: Mapping[str, str],
        profile: str,
        principal: Principal,
        request_id: str = "",
    ) -> Created:
        """A new session of the principal's tenant, live once this returns; `durations`: the
        idle timeout and maximum life asked for (None: the server's defaults). With a
        `request_id` (checked by the edge), idempotent: see `create_keys`."""
        principal.require(Scope.RUNS_START)
        spec = check_create(kind, start_url, durations, labels, profile, self._limits)
        if spec.profile:  # NOT_FOUND (or no vault) before anything opens
            self._runs.vault.require()
            profile_row(self._runs.vault, principal.tenant, spec.profile)
        key = create_key(spec, principal, request_id, self._settings.idempotency_ttl)
        if key is not None and (found := await self._store.find_session_start(key)) is not None:
            return self._replay(found, key)
        if self._settings.role == "api" and self._relay is not None:
            return await self._create_on_worker(spec, principal, request_id)
        self._admit(spec, principal)
        self._opening += 1
        try:
            return Created(await self._open(spec, principal, key))
        except _KeyTaken:  # by a create racing this one
            assert key is not None
            found = await self._store.find_session_start(key)
            if found is None:
                raise Unavailable(
                    "the session holding this request id went meanwhile; try again"
                ) from None
            return self._replay(found, key)
        finally:
            self._opening -= 1

    def _replay(self, found: KeyedSession, key: StartKey) -> Created:
        return Created(self._find(replayed_session(found, key), None), replayed=True)

    async def _create_on_worker(
        self, spec: SessionSpec, principal: Principal, request_id: str
    ) -> Created:
        """An API-only replica holds no browser: the least busy worker creates the session."""
        assert self._relay is not None
        address = await worker_address(self._store, self._patience)
        request = create_request(spec, request_id)
        return await self._relay.create_session(address, request, principal)

    def _admit(self, spec: SessionSpec, principal: Principal) -> None:
        if not self.accepting or self._runs.not_serving() == "SHUTTING_DOWN":
            raise Unavailable("the server is shutting down and accepts no new sessions")
        if spec.kind not in self._agents or self._settings.role == "api":
            raise FailedPrecondition(
                "this replica executes no runs of that kind, so it keeps no such sessions",
                reason="NO_AGENT_FOR_KIND",
            )
        self._runs.check_session_quota(principal)
        if len(self._holding.here) + self._opening >= self._limits.max_live:
            raise ResourceExhausted(
                f"this server holds {self._limits.max_live} live sessions, its maximum "
                "(OUTRIDER_SESSION_MAX_LIVE)",
                retry_after=self._settings.busy_retry_after,
                reason="SESSION_LIMIT",
            )

    async def _open(
        self, spec: SessionSpec, principal: Principal, key: StartKey | None
    ) -> session_pb2.Session:
        session_id = new_id()
        record = records.new_record(session_name(session_id), spec, principal)
        limit = self._limits.tenant_max_live
        refusal = await self._store.insert_session(record, session_id, limit, key)
        if refusal == REQUEST_ID_TAKEN:
            raise _KeyTaken()
        if refusal == TENANT_SESSIONS_FULL:
            raise ResourceExhausted(
                f"{limit} sessions are live in tenant {principal.tenant!r}, the configured "
                "maximum (OUTRIDER_SESSION_TENANT_MAX_LIVE)",
                retry_after=self._settings.busy_retry_after,
                reason=TENANT_SESSIONS_FULL,
            )
        try:
            with self._holding.opening_here(session_id):
                opened = self._opened_profile(spec, session_id, principal.tenant)
                kept = await self._keep(spec, session_id, opened.state if opened else None)
        except Exception as error:
            why = self._fail(record, session_id, error)
            if isinstance(error, OutriderError):
                raise
            raise Unavailable(why, reason="BROWSER_UNAVAILABLE") from None
        # the version its browser state comes from: its runs' saves must find it there
        profile = SessionProfile(spec.profile, opened.version) if opened else None
        live = self._holding.open(record, kept, profile)
        return self._copy(live.record)

    async def _keep(
        self, spec: SessionSpec, session_id: str, state: StorageState | None
    ) -> Kept | None:
        """What the kind's agent keeps for the session (nothing, for an agent that keeps none),
        a browser started from the session's profile when it names one."""
        agent = self._agents[spec.kind]
        if not hasattr(agent, "keep"):
            return None
        keeper: SessionAgent = agent  # type: ignore[assignment]

        def lost(why: str) -> None:
            live = self._holding.here.get(session_id)
            if live is not None:
                self._holding.lost(live, why)

        return await keeper.keep(spec.start_url, lost, state)

    def _opened_profile(
        self, spec: SessionSpec, session_id: str, tenant: str
    ) -> OpenedProfile | None:
        """The session's profile opened read only (no writer lease): its state and version."""
        if not spec.profile:
            return None
        return OpenedProfile.open(self._runs.vault, tenant, spec.profile, session_id, save=False)

    def _fail(self, record: session_pb2.Session, session_id: str, error: Exception) -> str:
        """The session's agent could not open what it keeps: the session ends at once. Says
        why, in words."""
        why = error.message if isinstance(error, OutriderError) else str(error).splitlines()[0]
        ended = records.ending(LOST, f"its browser did not open: {why or repr(error)}")
        records.mark_ended(record, ended)
        self._store.save_session(record, session_id)
        return ended.message

    # reading

    def get(self, session_id: str, principal: Principal) -> session_pb2.Session:
        record = self._find(session_id, principal.tenant_filter)
        if record.created_by != principal.id:
            principal.require(Scope.RUNS_READ)
        return record

    def runs_of(self, session_id: str, principal: Principal, limit: int = 50) -> list[run_pb2.Run]:
        """The session's newest `limit` runs, newest first (NotFound as `get`)."""
        self.get(session_id, principal)
        rows = self._store.session_runs(session_id)[-limit:]
        found = (self._store.get_run(row.run_id) for row in reversed(rows))
        return [run for run in found if run is not None]

    async def lend_browser(
        self, session_id: str, principal: Principal, request_id: str, save_profile: bool = False
    ) -> Started:
        """Starts the by-hand run that lends the session's browser to a person (hands_on.py):
        refused as any start in it is (busy, ended, another tenant's, a research session; with
        `save_profile`, a session that started from no profile)."""
        spec = hands_on_spec(session_name(session_id), save_profile)
        return await self._runs.start(spec, principal, "", "", request_id)

    def _find(self, session_id: str, tenant: str | None) -> session_pb2.Session:
        """The session, when it belongs to `tenant` (any tenant for None), else NotFound."""
        live = self._holding.here.get(session_id)
        if live is not None and tenant in (None, live.record.tenant):
            return self._copy(live.record)
        stored = None if live is not None else self._store.get_session(session_id, tenant)
        if stored is None:
            raise NotFound(f"{session_name(session_id)} does not exist")
        return stored

    def _copy(self, record: session_pb2.Session) -> session_pb2.Session:
        """A caller's copy of a live session's record, its newest sequence included."""
        copy = session_pb2.Session()
        copy.CopyFrom(record)
        live = self._holding.here.get(session_id_from(record.name))
        if live is not None and live.begun:
            run = self._runs.log.last_sequence(live.run_id)
            copy.last_sequence = live.last_sequence(run)
        return copy

    def list(
        self, size: int, token: str, states: list[int], kind: int, principal: Principal
    ) -> tuple[list[session_pb2.Session], str]:
        """Sessions of the principal's tenant (every tenant for an admin), newest first."""
        principal.require(Scope.RUNS_READ)
        limit = paging.page_size(size)
        _check_filters(states, kind)
        bound = paging.filter_text(states=states, kind=kind)
        before = self._runs.page_tokens.decode("sessions", token, filters=bound)
        rows = self._store.list_sessions(limit + 1, before, states, kind, principal.tenant_filter)
        page = paging.within_bytes([self._fresh(r) for r in rows[:limit]])
        if len(rows) > limit or len(page) < len(rows):
            last = page[-1]
            cursor = (last.create_time.ToMicroseconds(), session_id_from(last.name))
            return page, self._runs.page_tokens.encode("sessions", *cursor, bound)
        return page, ""

    def _fresh(self, stored: session_pb2.Session) -> session_pb2.Session:
        live = self._holding.here.get(session_id_from(stored.name))
        return self._copy(live.record) if live is not None else stored

    def newest_labelled(
        self, labels: Mapping[str, str], kind: int, principal: Principal
    ) -> session_pb2.Session | None:
        """The newest session of `kind` in the principal's tenant that has every one of `labels`
        (an edge's own, e.g. the A2A context it stands for), or None: a live one if any, else
        the newest ended one. Live ones are looked for apart, so that ended sessions (kept until
        retention) never push a live one out of the scan."""
        principal.require(Scope.RUNS_READ)
        for states in (list(LIVE_SESSION_STATES), []):
            rows = self._store.list_sessions(1000, None, states, kind, principal.tenant_filter)
            for stored in rows:
                if all(stored.labels.get(key) == value for key, value in labels.items()):
                    return self._fresh(stored)
        return None

    def watch(
        self,
        session_id: str,
        after: int,
        principal: Principal,
        reauthenticate: Reauthenticate | None = None,
    ) -> AsyncGenerator[SessionBatch, None]:
        """The session's events after `after`, then live ones until it ends; errors raise now.
        With `reauthenticate`, the caller's credential is checked again before each batch."""
        if after < 0:
            raise InvalidArgument.single("after_sequence", "must not be negative")
        record = self.get(session_id, principal)
        batches = self._stream.follow(session_id, after, record.last_sequence, principal)
        return rechecked(batches, record.created_by, principal, reauthenticate)

    # ending

    async def end(self, session_id: str, reason: str, principal: Principal) -> session_pb2.Session:
        """Ends the session (its active run cancelled first); idempotent."""
        principal.require(Scope.RUNS_CANCEL)
        validation.check_reason(reason)
        record = self._find(session_id, principal.tenant_filter)
        if record.state == records.ENDED:
            return record
        live = self._holding.here.get(session_id)
        if live is None:
            return await self._end_elsewhere(session_id, reason, principal)
        message = f"ended by {principal.id}: {reason or 'no reason given'}"
        ending = records.ending(session_pb2.SESSION_END_REASON_ENDED, message, principal.id)
        await self._holding.end(live, ending)
        return self._find(session_id, None)

    async def _end_elsewhere(
        self, session_id: str, reason: str, principal: Principal
    ) -> session_pb2.Session:
        """Relays the end to the replica holding the session."""
        if self._relay is None:
            raise SessionElsewhere(session_id)
        if principal.relayed:  # relayed here because this replica held it: no longer
            raise Unavailable(f"{session_name(session_id)} is no longer held here; try again")
        address = await session_executor(self._store, session_id, self._patience)
        if address is None:  # it ended meanwhile
            return self._find(session_id, None)
        return await self._relay.end_session(address, session_id, reason, principal)


class _KeyTaken(Exception):
    """Another session took the create's key between looking for it and inserting."""


def _check_filters(states: list[int], kind: int) -> None:
    for index, state in enumerate(states):
        if state not in session_pb2.SessionState.values() or not state:
            raise InvalidArgument.single(f"states[{index}]", f"unknown session state {state}")
    if kind not in run_pb2.RunKind.values():
        raise InvalidArgument.single("kind", f"unknown run kind {kind}")
