"""Starting runs: the checks every start passes, the principal's quotas and the server's room,
the record committed before the run is launched, and starts repeated with the same request id
(see `idempotent_starts`). An API-only replica (OUTRIDER_ROLE=api) relays the start, after the
same checks, to the least busy worker replica."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from outrider.server.core import clock, validation
from outrider.server.core.cluster.relay import Relay, session_executor, worker_address
from outrider.server.core.errors import ResourceExhausted, StartInDoubt, Unavailable, Unimplemented
from outrider.server.core.events.log import EventLog
from outrider.server.core.names import new_id, run_name
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.request_ids import Started
from outrider.server.core.runs.agent import Agent, AgentRegistry
from outrider.server.core.runs.execution import ActiveRun, Executions
from outrider.server.core.runs.idempotent_starts import (
    NOT_CONFIRMED,
    START_WAIT,
    answer_when_saved,
    find_start,
    replayed_run,
    settle,
    start_key,
)
from outrider.server.core.runs.observing import KIND_NAMES
from outrider.server.core.runs.quotas import Quotas
from outrider.server.core.runs.session_seats import Seat, SessionElsewhere, SessionSeats
from outrider.server.core.runs.terminal import Ending
from outrider.server.core.secrets.run_secrets import keep_secrets_in_memory
from outrider.server.core.storage import ActiveLimits, Store
from outrider.server.core.storage.contract import REQUEST_ID_TAKEN, KeyedRun, StartKey
from outrider.server.core.vault.checks import saves_to_session
from outrider.server.core.vault.vault import Vault
from outrider.server.settings import Settings
from outrider.server.telemetry.logs import RUN_ID
from outrider.v1 import params_pb2, run_pb2


@dataclass(frozen=True)
class RunSpec:
    """What to run: the kind, its parameters, our options, and the labels the starting edge
    gives the run (`Run.labels`, e.g. the A2A context)."""

    kind: int
    params: params_pb2.AutomateParams | params_pb2.ResearchParams
    options: params_pb2.RunOptions
    labels: Mapping[str, str] = field(default_factory=dict)


class Starter:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        log: EventLog,
        agents: AgentRegistry,
        executions: Executions,
        quotas: Quotas,
        find: Callable[[str, str | None], run_pb2.Run],
        vault: Vault,
    ) -> None:
        self._settings = settings
        self._store = store
        self._log = log
        self._agents = agents
        self._executions = executions
        self._quotas = quotas
        self._find = find
        self._vault = vault
        self.seats: SessionSeats | None = None  # sessions, once the room above says it is there
        # reaches the replica holding a session (replicas sharing a store), with its patience
        self.session_relay: tuple[Relay, float] | None = None

    async def start(
        self,
        spec: RunSpec,
        principal: Principal,
        where: tuple[str, str],
        request_id: str,
        relay: tuple[Relay, float] | None,
    ) -> Started:
        """See `RunManager.start`; `relay`: the relay and its patience, on an API-only replica.
        Answered within START_WAIT, with or without a request id: a store that does not answer
        meanwhile (held, hung) gets UNAVAILABLE START_NOT_CONFIRMED. The request id and a
        relayed start keep the caller's words; the run records the model spec its
        `options.model` stands for."""
        chosen = self._check_start(spec, principal, *where)
        ttl = self._settings.idempotency_ttl
        key = start_key(spec.kind, spec.params, spec.options, principal, request_id, ttl)
        deadline = time.monotonic() + START_WAIT
        if key is not None and (found := await find_start(self._store, key, deadline)) is not None:
            return self._replay(found, key)
        if spec.options.session and self.seats is not None:
            await self.seats.settle(spec.options.session)
        if spec.options.session and (home := await self._session_home(spec, principal, where)):
            return await home[0].start(home[1], spec.params, spec.options, principal, request_id)
        if relay is not None:
            address = await worker_address(self._store, relay[1])
            return await relay[0].start(address, spec.params, spec.options, principal, request_id)
        return await self._create(chosen, principal, key, where[1], deadline)

    async def _session_home(
        self, spec: RunSpec, principal: Principal, where: tuple[str, str]
    ) -> tuple[Relay, str] | None:
        """Where a start naming a session another replica holds goes: that replica (with the
        relay that reaches it); None when the session is held here."""
        if self.seats is None:
            raise Unimplemented("this server keeps no sessions")
        field = f"{where[1]}session"
        session_id = self.seats.elsewhere(spec.options.session, spec.kind, principal, field)
        if session_id is None:
            return None
        if self.session_relay is None:
            raise SessionElsewhere(session_id)
        relay, patience = self.session_relay
        if principal.relayed:  # relayed here because this replica held it: it moved since
            raise Unavailable(f"{spec.options.session} is no longer held here", reason="RUN_MOVED")
        address = await session_executor(self._store, session_id, patience)
        if address is None:  # it ended meanwhile: the refusal says how
            self.seats.elsewhere(spec.options.session, spec.kind, principal, field)
            raise SessionElsewhere(session_id)
        return relay, address

    async def _create(
        self,
        spec: RunSpec,
        principal: Principal,
        key: StartKey | None,
        options_at: str,
        deadline: float,
    ) -> Started:
        agent = self._agents.get(spec.kind)
        if agent is None:
            raise Unimplemented(f"{KIND_NAMES[spec.kind]} runs are not implemented yet")
        agent.preflight(spec.params, spec.options)
        run_id = new_id()
        seat = self._admit(spec, principal, run_id, options_at)
        active = self._register(spec, principal, run_id, seat)
        RUN_ID.set(active.ctx.run_id)  # the caller's access-log line names the run it started
        saving = asyncio.create_task(self._save_then_launch(active, agent, principal, key))
        active.saving = saving
        refusal = await answer_when_saved(saving, key is not None, active.give_up, deadline)
        if refusal is None:
            return Started(self._find(active.ctx.run_id, None))
        if refusal == REQUEST_ID_TAKEN and key is not None:  # by a start racing this one
            found = await find_start(self._store, key, deadline)
            if found is not None:
                return self._replay(found, key)
            raise Unavailable("the run holding this request id went meanwhile; try again")
        raise self._refused(refusal, principal)

    def _replay(self, found: KeyedRun, key: StartKey) -> Started:
        return Started(self._find(replayed_run(found, key), None), replayed=True)

    async def _save_then_launch(
        self, active: ActiveRun, agent: Agent, principal: Principal, key: StartKey | None
    ) -> str | None:
        """Saves the new run (committed), then launches it; the refusal instead, with the run
        forgotten here. A run whose save failed was never saved: forgotten too, and the error
        is the caller's answer."""
        run_id = active.ctx.run_id
        limits = ActiveLimits(
            self._settings.cluster_max_active_runs, self._settings.tenant_max_active_runs
        )
        try:
            refusal = await self._store.insert_run(active.run, run_id, limits, key)
        except StartInDoubt as doubt:
            if not await settle(self._store, run_id):
                self._forget_unsaved(active, principal)
                raise Unavailable(doubt.message, reason="STORE_UNAVAILABLE") from None
            refusal = None
        except BaseException:
            self._forget_unsaved(active, principal)
            raise
        if refusal is not None:
            self._forget_unsaved(active, principal)
            return refusal
        self._launch(active, agent, key is not None)
        return None

    def _forget_unsaved(self, active: ActiveRun, principal: Principal) -> None:
        if self._executions.forget(active.ctx.run_id) is not None:
            self._quotas.give_back_start(principal)

    def _launch(self, active: ActiveRun, agent: Agent, keyed: bool) -> None:
        """Executes a saved run, unless its caller gave up waiting and has no request id to
        find it with: then the run ends at once, not executed (see `idempotent_starts`)."""
        ending = None
        if active.unanswered and not keyed:
            message = "the caller was told this start failed (its record committed late)"
            ending = Ending(NOT_CONFIRMED, f"not executed: {message}")
        self._executions.launch(active, agent, ending)

    def _check_start(
        self, spec: RunSpec, principal: Principal, params_at: str, options_at: str
    ) -> RunSpec:
        """What every start checks, wherever the run is then executed; the spec with the model
        its caller chose (see `validation.chosen_model`)."""
        principal.require(Scope.RUNS_START)
        _check_spec(spec, params_at, options_at)
        browser_run = spec.kind == run_pb2.RUN_KIND_AUTOMATE
        session_profile = self._session_profile(spec, principal, options_at)
        self._vault.check_run(
            spec.options, principal.tenant, browser_run, options_at, session_profile
        )
        model = validation.chosen_model(
            spec.options.model,
            principal.offered_models(self._settings.models),
            self._settings.scripted_model_dirs,
            f"{options_at}model",
        )
        if not self._executions.accepting:
            raise Unavailable("the server is shutting down and accepts no new runs")
        if model == spec.options.model:
            return spec
        options = params_pb2.RunOptions()
        options.CopyFrom(spec.options)
        options.model = model
        return replace(spec, options=options)

    def _session_profile(self, spec: RunSpec, principal: Principal, options_at: str) -> str:
        """The profile the run's session started from, when the run saves to it ("" else)."""
        if not saves_to_session(spec.options):
            return ""
        if self.seats is None:
            raise Unimplemented("this server keeps no sessions")
        field = f"{options_at}session"
        return self.seats.profile_of(spec.options.session, spec.kind, principal, field)

    def _admit(
        self, spec: RunSpec, principal: Principal, run_id: str, options_at: str
    ) -> Seat | None:
        """The principal's own quotas first, then the server-wide room (executing slots plus the
        line), then the session's seat when the run names one; a start token is spent only when
        the run is admitted. A run in a session counts in the principal's concurrency as its
        session does (see `concurrency_check`)."""
        if not spec.options.session:
            self.concurrency_check(principal)
        self._check_room()
        self._quotas.take_start(principal)
        if not spec.options.session:
            return None
        try:
            if self.seats is None:
                raise Unimplemented("this server keeps no sessions")
            return self.seats.take(
                spec.options.session,
                spec.kind,
                run_id,
                principal,
                f"{options_at}session",
                by_hand=spec.options.by_hand,
            )
        except BaseException:
            self._quotas.give_back_start(principal)
            raise

    def concurrency_check(self, principal: Principal) -> None:
        """Refuses when the principal holds its maximum of concurrent runs: its active runs
        outside sessions, and each of its live sessions (a session holds a browser)."""
        held = self.seats.held_by(principal.id) if self.seats is not None else 0
        active = self._executions.active.values()
        mine = sum(1 for a in active if a.run.created_by == principal.id and a.seat is None)
        self._quotas.check_concurrency(principal, mine + held)

    def _check_room(self) -> None:
        active = self._executions.active
        limit = self._settings.max_concurrent_runs + self._settings.max_queued_runs
        if len(active) >= limit:
            admission = self._executions.admission
            raise ResourceExhausted(
                f"{admission.running} runs are executing and {admission.waiting} "
                "wait for a slot, the configured maximum",
                retry_after=self._settings.busy_retry_after,
            )

    def _refused(self, refusal: str, principal: Principal) -> ResourceExhausted:
        """The error of a start the store refused for a limit over every replica sharing it."""
        if refusal == "CLUSTER_BUSY":
            where = f"{self._settings.cluster_max_active_runs} runs are active across the cluster"
        else:
            limit = self._settings.tenant_max_active_runs
            where = f"{limit} runs are active in tenant {principal.tenant!r}"
        return ResourceExhausted(
            f"{where}, the configured maximum",
            retry_after=self._settings.busy_retry_after,
            reason=refusal,
        )

    def _register(
        self, spec: RunSpec, principal: Principal, run_id: str, seat: Seat | None
    ) -> ActiveRun:
        now = clock.now_us()
        run = run_pb2.Run(
            name=run_name(run_id),
            kind=spec.kind,  # type: ignore[arg-type]
            state=run_pb2.RUN_STATE_QUEUED,
            create_time=clock.timestamp(now),
            update_time=clock.timestamp(now),
            options=spec.options,
            tenant=principal.tenant,
            created_by=principal.id,
            labels=spec.labels,
        )
        arm = "automate" if spec.kind == run_pb2.RUN_KIND_AUTOMATE else "research"
        getattr(run, arm).CopyFrom(spec.params)
        live, redactor = keep_secrets_in_memory(run)
        self._log.open(run_id, redactor=redactor)
        return self._executions.activate(run, live, now, redactor, None, seat)


def _check_spec(spec: RunSpec, params_at: str, options_at: str) -> None:
    if isinstance(spec.params, params_pb2.AutomateParams):
        validation.check_automate(spec.params, params_at)
    else:
        validation.check_research(spec.params, params_at)
    validation.check_options(spec.options, options_at)
    validation.check_labels(spec.labels)
    if isinstance(spec.params, params_pb2.AutomateParams):
        validation.check_resume_option(spec.params, spec.options, options_at)
