"""The run manager: creates runs, drives their agents, ends them properly, and serves them.

Every public call takes the calling principal: it needs the call's scope, and it reaches only runs
of its own tenant (an admin reaches all); another tenant's run is NOT_FOUND, like a missing one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import traceback
from collections.abc import AsyncGenerator, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

from outrider.server.core import clock, paging, validation
from outrider.server.core.cluster.presence import presence_patience
from outrider.server.core.cluster.relay import (
    ExecutedElsewhere,
    Relay,
    through_outage,
    worker_address,
)
from outrider.server.core.cluster.relayed_cancels import RelayedCancels
from outrider.server.core.control.browsers import BrowserControls
from outrider.server.core.errors import (
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    OutriderError,
    ResourceExhausted,
    StartInDoubt,
    Unavailable,
    Unimplemented,
)
from outrider.server.core.events.log import EventLog, WatchBatch, WatchItem
from outrider.server.core.events.names import event_name
from outrider.server.core.interactions.answer_links import AnswerLinks
from outrider.server.core.interactions.answers import Answers
from outrider.server.core.interactions.broker import InteractionBroker
from outrider.server.core.names import new_id, run_name
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.runs import search
from outrider.server.core.runs.admission import Admission
from outrider.server.core.runs.adoption import Resumed, Takeover
from outrider.server.core.runs.agent import Agent, AgentRegistry, RunContext
from outrider.server.core.runs.artifacts import ArtifactStore
from outrider.server.core.runs.checkpoints import Checkpoints
from outrider.server.core.runs.observing import KIND_NAMES, kind_label, observe_end, observe_start
from outrider.server.core.runs.quotas import QuotaDefaults, Quotas
from outrider.server.core.runs.readiness import Readiness, check_agents
from outrider.server.core.runs.resume_gate import AskBeforeResuming
from outrider.server.core.runs.side_effects import SideEffectJournal
from outrider.server.core.runs.starts import (
    NOT_CONFIRMED,
    START_WAIT,
    Started,
    answer_when_saved,
    replayed_run,
    settle,
    start_key,
)
from outrider.server.core.runs.stream_checks import Reauthenticate, checked
from outrider.server.core.runs.terminal import Ending, RunStats, terminal_payloads
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.secrets.run_secrets import keep_secrets_in_memory, restart_reason
from outrider.server.core.shutdown import LAST_DELIVERY, ending_bound
from outrider.server.core.storage import ACTIVE_STATES, ActiveLimits, Store
from outrider.server.core.storage.contract import (
    REQUEST_ID_TAKEN,
    SIGNING_SECRET,
    KeyedRun,
    StartKey,
)
from outrider.server.settings import Settings
from outrider.server.telemetry import metrics, tracing
from outrider.server.telemetry.logs import RUN_ID
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import params_pb2, run_event_pb2, run_pb2

log = logging.getLogger("outrider.server.core.runs")  # with runs/observing.py

_END_STATES = {
    "CANCELLED": run_pb2.RUN_STATE_CANCELLED,
}


@dataclass(frozen=True)
class RunSpec:
    """What to run: the kind, its parameters, our options, and the labels the starting edge
    gives the run (`Run.labels`, e.g. the A2A context)."""

    kind: int
    params: params_pb2.AutomateParams | params_pb2.ResearchParams
    options: params_pb2.RunOptions
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass
class _Active:
    run: run_pb2.Run
    ctx: RunContext
    task: asyncio.Task[None] | None = None
    cancel_reason: str = ""
    ending: bool = False
    moved: bool = False  # another replica took the run over: this one writes no ending
    saving: asyncio.Task[str | None] | None = None  # its first save, then its launch
    unanswered: bool = False  # its caller gave up before the record committed (see starts)

    def give_up(self) -> None:
        """Its caller stopped waiting before the record committed (see `starts`)."""
        self.unanswered = True

    @property
    def cancel_message(self) -> str:
        reason = self.cancel_reason or "no reason given"
        by = self.run.cancelled_by
        return f"cancelled by {by}: {reason}" if by else f"cancelled: {reason}"


class RunManager:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        agents: AgentRegistry,
        relay: Relay | None = None,
    ) -> None:
        self._settings = settings
        self._store = store
        self._agents = agents
        self._relay = relay
        self.log = EventLog(store, settings.watcher_buffer, settings.store_unready_after)
        secret = settings.page_token_secret
        # Signs page tokens; answer links and console sessions use keys derived from it. Every
        # replica must hold the same: the operator's secret, else the database's shared one
        # (PostgreSQL), else the data directory's key file (SQLite: one process).
        shared = secret.get_secret_value() if secret else store.shared_secret(SIGNING_SECRET)
        self.signing_key = paging.load_key(shared, settings.data_dir)
        self.page_tokens = paging.PageTokens(self.signing_key)
        self.interactions = InteractionBroker(
            store, self.log, settings.interaction_ttl, self._refresh_state, self.page_tokens
        )
        # how long a relayed call waits for its executor's presence (a database restart drops
        # every replica's; each takes it back within a second)
        self._patience = presence_patience(settings.failover_interval)
        self.answers = Answers(self.interactions, store, relay, self._patience)
        self._relayed = RelayedCancels(store, relay, self._patience, lambda i: self._find(i, None))
        self.browsers = BrowserControls(
            self.interactions, store, relay, settings.takeover_ttl, self._find, self._patience
        )
        self.answer_links = AnswerLinks(
            paging.derived_key(self.signing_key, "answer links"),
            settings.public_url or "",
            settings.console and settings.rest_enabled,
            self.interactions,
            self.answers,
            store.run_tenant,
        )
        self.artifacts = ArtifactStore(store)
        self._quotas = Quotas(
            QuotaDefaults(
                settings.principal_max_concurrent_runs,
                settings.principal_starts_per_minute,
                settings.principal_start_burst,
            )
        )
        self._active: dict[str, _Active] = {}
        self._admission = Admission(settings.max_concurrent_runs, self._tell_place)
        self._accepting = True
        self.readiness = Readiness()  # until check_readiness: nothing known against it
        self.takeover = Takeover(store, self.interactions, self, settings.failover_resumes)
        # another replica could resume a run of this one: its agent's checkpoints are worth saving
        self._resumable_elsewhere = bool(settings.database_url) and settings.failover_resumes > 0
        metrics.server_info(settings.max_concurrent_runs)

    # lifecycle

    def recover(self) -> int:
        """Closes, as failed with terminal events, the runs a previous process left active
        (see `Takeover.recover`)."""
        return self.takeover.recover()

    def sweep_orphans(self, seen_before: Mapping[str, int]) -> tuple[int, dict[str, int]]:
        """Takes over the runs of a replica that died (see `Takeover.sweep`)."""
        return self.takeover.sweep(seen_before)

    # what the takeover asks of this manager (takeover.RunHost)

    def executing(self) -> Collection[str]:
        return self._active.keys()

    def can_execute(self, kind: int) -> bool:
        return self._settings.role != "api" and kind in self._agents and self._accepting

    def room(self) -> int:
        if not self._accepting:
            return 0
        limit = self._settings.max_concurrent_runs + self._settings.max_queued_runs
        return max(limit - len(self._active), 0)

    def adopt(self, run: run_pb2.Run, takeovers: int, resumed: Resumed) -> None:
        run_id = _id(run)
        redactor = Redactor()
        self.log.open(run_id, resumed.last[-1].sequence if resumed.last else 0, redactor=redactor)
        run.state = run_pb2.RUN_STATE_QUEUED
        live = run_pb2.Run()
        live.CopyFrom(run)
        attempt = (takeovers, resumed.side_effects)
        active = self._activate(run, live, clock.now_us(), redactor, attempt)
        reason = "the replica executing the run was lost; another replica took it over"
        active.ctx.emit(run_event_pb2.RunResumed(attempt=takeovers, reason=reason))
        agent = self._agents[run.kind]
        if resumed.ask:
            agent = AskBeforeResuming(agent, resumed.side_effects)
        active.task = asyncio.create_task(self._drive(active, agent), name=run.name)

    def close_lost(
        self, run: run_pb2.Run, last: list[run_event_pb2.RunEvent], ending: Ending | None = None
    ) -> None:
        run_id = _id(run)
        self.log.open(run_id, last[-1].sequence if last else 0)
        ending = ending or Ending("SERVER_RESTARTED", restart_reason(run))
        stats = RunStats(run.create_time.ToMicroseconds(), 0, 0)
        for payload in terminal_payloads(run.kind, {event_name(e) for e in last}, ending, stats):
            self.log.append(run_id, payload)
        self._record_end(run, run_id, run_pb2.RUN_STATE_FAILED, _failure(ending))

    def stop_moved(self, run_id: str) -> None:
        active = self._active.get(run_id)
        if active is not None:
            active.moved = True
            self._request_cancel(active, "taken over by another replica")

    async def check_readiness(self) -> Readiness:
        """Asks every agent whether its runs can start (see core/runs/readiness.py). An API-only
        replica executes nothing here, so its agents' checks do not concern it."""
        if self._settings.role != "api":
            self.readiness = await check_agents(self._agents)
        return self.readiness

    def not_serving(self) -> str:
        """'' while new runs can start here; else the reason: SHUTTING_DOWN, NO_AGENT_CAN_RUN,
        or STORE_UNREACHABLE (the store has been unreachable longer than
        OUTRIDER_STORE_UNREADY_AFTER; the process itself lives on)."""
        if not self._accepting:
            return "SHUTTING_DOWN"
        if self.store_down_for() > self._settings.store_unready_after:
            return "STORE_UNREACHABLE"
        return "" if self.readiness.ready else "NO_AGENT_CAN_RUN"

    def store_down_for(self) -> float:
        """Seconds this replica has not reached its store (0.0 while it does)."""
        return self._store.unreachable_for()

    def stop_accepting(self) -> None:
        """From now on `start` refuses with Unavailable."""
        self._accepting = False

    async def shutdown(self, grace: float) -> None:
        """Refuses new runs, lets active ones finish for `grace` seconds, then cancels the rest.
        Watchers (both edges) are waited for too: the caller closes streams and the store only
        when each received its run's ending, or when `longest_shutdown(grace)` is up."""
        self.stop_accepting()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace + ending_bound(grace)
        saving = {a.saving for a in self._active.values() if a.saving and not a.saving.done()}
        if saving:  # starts accepted before: saved and launched, they end like the others
            await asyncio.wait(saving, timeout=START_WAIT)
        tasks = {a.task for a in self._active.values() if a.task}
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=grace)
            for active in list(self._active.values()):
                self._request_cancel(active, "the server is shutting down")
            if late:
                await asyncio.wait(late, timeout=max(deadline - loop.time(), 0.0))
        self._store.flush()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(deadline - loop.time(), LAST_DELIVERY)):
                await self.log.nobody_watching()
        if self.log.watching:
            log.warning("%d watchers are still reading; their streams close now", self.log.watching)

    # creating and driving runs

    async def start(
        self,
        spec: RunSpec,
        principal: Principal,
        params_at: str = "params.",
        options_at: str = "options.",
        request_id: str = "",
    ) -> Started:
        """Validates and starts a run of the principal's tenant: here, or on an API-only replica
        (OUTRIDER_ROLE=api) on the least busy worker replica, after the same checks (relayed
        with the caller's identity). `params_at`/`options_at` are where those sit in the
        caller's request, so field violations name the caller's fields. With a request id (an
        edge checked it), a start repeating an earlier one returns that run (see `starts`).
        Returns once the run's record is committed, readable by every replica."""
        self._check_start(spec, principal, params_at, options_at)
        ttl = self._settings.idempotency_ttl
        key = start_key(spec.kind, spec.params, spec.options, principal, request_id, ttl)
        if key is not None and (found := await self._store.find_start(key)) is not None:
            return self._replay(found, key)
        if self._settings.role == "api" and self._relay is not None:
            address = await worker_address(self._store, self._patience)
            return await self._relay.start(
                address, spec.params, spec.options, principal, request_id
            )
        return await self._create(spec, principal, key)

    async def _create(self, spec: RunSpec, principal: Principal, key: StartKey | None) -> Started:
        agent = self._agents.get(spec.kind)
        if agent is None:
            raise Unimplemented(f"{KIND_NAMES[spec.kind]} runs are not implemented yet")
        agent.preflight(spec.params, spec.options)
        self._admit(principal)
        active = self._register(spec, principal)
        RUN_ID.set(active.ctx.run_id)  # the caller's access-log line names the run it started
        saving = asyncio.create_task(self._save_then_launch(active, agent, principal, key))
        active.saving = saving
        refusal = await answer_when_saved(saving, key is not None, active.give_up)
        if refusal is None:
            return Started(self._find(active.ctx.run_id, None))
        if refusal == REQUEST_ID_TAKEN and key is not None:  # by a start racing this one
            found = await self._store.find_start(key)
            if found is not None:
                return self._replay(found, key)
            raise Unavailable("the run holding this request id went meanwhile; try again")
        raise self._refused(refusal, principal)

    def _replay(self, found: KeyedRun, key: StartKey) -> Started:
        return Started(self._find(replayed_run(found, key), None), replayed=True)

    async def _save_then_launch(
        self, active: _Active, agent: Agent, principal: Principal, key: StartKey | None
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

    def _forget_unsaved(self, active: _Active, principal: Principal) -> None:
        run_id = active.ctx.run_id
        if self._active.pop(run_id, None) is not None:
            self.log.close(run_id)
            metrics.run_active(kind_label(active.run.kind), -1)
            self._quotas.give_back_start(principal)

    def _launch(self, active: _Active, agent: Agent, keyed: bool) -> None:
        """Executes a saved run, unless its caller gave up waiting and has no request id to
        find it with: then the run ends at once, not executed (see `starts`)."""
        if active.unanswered and not keyed:
            message = "the caller was told this start failed (its record committed late)"
            self._end(active, Ending(NOT_CONFIRMED, f"not executed: {message}"))
            return
        active.task = asyncio.create_task(self._drive(active, agent), name=active.run.name)

    def _check_start(
        self, spec: RunSpec, principal: Principal, params_at: str, options_at: str
    ) -> None:
        """What every start checks, wherever the run is then executed."""
        principal.require(Scope.RUNS_START)
        _check_spec(spec, params_at, options_at)
        if not self._accepting:
            raise Unavailable("the server is shutting down and accepts no new runs")

    def _admit(self, principal: Principal) -> None:
        """The principal's own quotas first, then the server-wide room (executing slots plus the
        line); a start token is spent only when the run is admitted."""
        mine = sum(1 for a in self._active.values() if a.run.created_by == principal.id)
        self._quotas.check_concurrency(principal, mine)
        limit = self._settings.max_concurrent_runs + self._settings.max_queued_runs
        if len(self._active) >= limit:
            raise ResourceExhausted(
                f"{self._admission.running} runs are executing and {self._admission.waiting} "
                "wait for a slot, the configured maximum",
                retry_after=self._settings.busy_retry_after,
            )
        self._quotas.take_start(principal)

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

    def _register(self, spec: RunSpec, principal: Principal) -> _Active:
        run_id, now = new_id(), clock.now_us()
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
        self.log.open(run_id, redactor=redactor)
        return self._activate(run, live, now, redactor, None)

    def _activate(
        self,
        run: run_pb2.Run,
        live: run_pb2.Run,
        started_us: int,
        redactor: Redactor,
        resumed: tuple[int, list[run_event_pb2.SideEffect]] | None,
    ) -> _Active:
        """Registers a run this process executes from now on (its log is open); `resumed`:
        the takeover count and side-effect journal of a run taken over."""
        run_id = _id(run)
        checkpoints = Checkpoints(
            self._store, run_id, redactor, resumed is not None, self._resumable_elsewhere
        )
        attempt, earlier = resumed or (0, [])
        journal = SideEffectJournal(self._store, self.log, run_id, redactor, attempt, earlier)
        control = (
            self.browsers.open(run_id, redactor) if run.kind == run_pb2.RUN_KIND_AUTOMATE else None
        )
        ctx = RunContext(
            live,
            started_us,
            self.log,
            self.interactions,
            self.artifacts,
            self._store,
            redactor,
            checkpoints,
            journal=journal,
            control=control,
        )
        active = _Active(run, ctx)
        self._active[run_id] = active
        metrics.run_active(kind_label(run.kind), +1)
        return active

    async def _drive(self, active: _Active, agent: Agent) -> None:
        """Runs the agent in this run's own task, span and log context."""
        RUN_ID.set(active.ctx.run_id)
        kind = KIND_NAMES[active.run.kind]
        attributes = {"outrider.run.id": active.ctx.run_id, "outrider.run.kind": kind}
        with tracing.span(f"run {kind}", attributes):
            await self._drive_agent(active, agent)

    async def _drive_agent(self, active: _Active, agent: Agent) -> None:
        outcome: run_pb2.RunOutcome | Ending
        try:
            await self._admission.enter(active.ctx.run_id)
            observe_start(active.run.kind, active.ctx.started_us)
            self._set_state(active, run_pb2.RUN_STATE_RUNNING)
            outcome = await agent.run(active.ctx)
        except asyncio.CancelledError:
            outcome = Ending(
                "CANCELLED", active.cancel_message, ae.AUTOMATE_ERROR_CODE_TASK_ABORTED
            )
        except Exception:
            trace = active.ctx.redactor.text(traceback.format_exc())
            log.error("agent of %s crashed\n%s", active.run.name, trace)
            outcome = Ending("AGENT_CRASHED", "the agent failed unexpectedly; see the server log")
        self._end(active, outcome)

    def _end(self, active: _Active, outcome: run_pb2.RunOutcome | Ending) -> None:
        active.ending = True
        run_id = active.ctx.run_id
        self.interactions.end_run(run_id)
        self.browsers.close(run_id)
        if active.moved:  # its events go on elsewhere; local watchers' streams end here
            self.log.close(run_id)
            del self._active[run_id]
            self._admission.leave(run_id)
            return
        ending = outcome if isinstance(outcome, Ending) else _ending_of(outcome)
        stats = RunStats(
            active.ctx.started_us, active.ctx.seen["agent:step"], active.ctx.seen["agent:action"]
        )
        for payload in terminal_payloads(active.run.kind, active.ctx.seen, ending, stats):
            active.ctx.emit(payload)
        final = outcome if isinstance(outcome, run_pb2.RunOutcome) else _failure(ending)
        state = _end_state(final)
        self._record_end(active.run, run_id, state, final)
        del self._active[run_id]
        self._admission.leave(run_id)
        observe_end(active.run.kind, active.ctx.started_us, state, final)

    def _tell_place(self, run_id: str, place: int) -> None:
        active = self._active.get(run_id)
        if active is not None and not active.ending:
            active.ctx.emit(run_event_pb2.RunQueued(position=place))

    def _record_end(
        self, run: run_pb2.Run, run_id: str, state: int, outcome: run_pb2.RunOutcome
    ) -> None:
        now = clock.timestamp(clock.now_us())
        run.state = state  # type: ignore[assignment]
        run.outcome.CopyFrom(outcome)
        run.update_time.CopyFrom(now)
        run.end_time.CopyFrom(now)
        run.last_sequence = self.log.last_sequence(run_id) or run.last_sequence
        self._store.save_run(run, run_id)
        self._store.delete_checkpoint(run_id)  # an ended run is never resumed
        self.log.close(run_id)

    def _set_state(self, active: _Active, state: int) -> None:
        if active.ending or active.run.state == state:
            return
        active.run.state = state  # type: ignore[assignment]
        active.run.update_time.CopyFrom(clock.timestamp(clock.now_us()))
        self._store.save_run(active.run, active.ctx.run_id)

    def _refresh_state(self, run_id: str) -> None:
        active = self._active.get(run_id)
        if active is None:
            return
        kinds = self.interactions.pending_kinds(run_id)
        if kinds & {ip.INTERACTION_KIND_FORM_DATA, ip.INTERACTION_KIND_TAKEOVER}:
            self._set_state(active, run_pb2.RUN_STATE_INPUT_REQUIRED)
        elif ip.INTERACTION_KIND_APPROVAL in kinds:
            self._set_state(active, run_pb2.RUN_STATE_APPROVAL_REQUIRED)
        elif active.run.state != run_pb2.RUN_STATE_QUEUED:
            self._set_state(active, run_pb2.RUN_STATE_RUNNING)

    # cancelling

    async def cancel(self, run_id: str, reason: str, principal: Principal) -> run_pb2.Run:
        """Cancels and waits (briefly) until the terminal events are out. Idempotent. The
        principal's id is recorded as `cancelled_by` and in the terminal events."""
        principal.require(Scope.RUNS_CANCEL)
        validation.check_reason(reason)
        return await through_outage(
            lambda: self._cancel_once(run_id, reason, principal), self._patience
        )

    async def _cancel_once(self, run_id: str, reason: str, principal: Principal) -> run_pb2.Run:
        elsewhere = self._executed_elsewhere(self._find(run_id, principal.tenant_filter))
        if elsewhere is not None:
            return await self._relayed.cancel(elsewhere, reason, principal)
        active = self._active.get(run_id)
        if active is not None and active.task is not None:
            self._request_cancel(active, reason or "cancelled by the caller", principal.id)
            await asyncio.wait({active.task}, timeout=10)
        return self._find(run_id, None)

    def cancel_soon(self, run_id: str, reason: str, principal: Principal) -> None:
        """Cancels without waiting; for a cancel that arrives on a stream (relayed in the
        background when another replica executes the run)."""
        principal.require(Scope.RUNS_CANCEL)
        validation.check_reason(reason, "cancel.reason")
        elsewhere = self._executed_elsewhere(self._find(run_id, principal.tenant_filter))
        if elsewhere is not None:
            self._relayed.cancel_soon(elsewhere, reason, principal)
            return
        active = self._active.get(run_id)
        if active is not None:
            self._request_cancel(active, reason, principal.id)

    def _executed_elsewhere(self, run: run_pb2.Run) -> ExecutedElsewhere | None:
        run_id = _id(run)
        if run.state in ACTIVE_STATES and run_id not in self._active:
            return ExecutedElsewhere(run_id)
        return None

    def cancel_on_disconnect(self, run_id: str, principal: Principal) -> None:
        """The caller that started the run with cancel-on-disconnect went away; this was asked
        for at the start, so it needs no cancel scope."""
        reason = "the caller disconnected"
        active = self._active.get(run_id)
        if active is not None:
            if principal.sees(active.run.tenant):
                self._request_cancel(active, reason, principal.id)
            return
        try:  # executed by another replica (a worker, when this one only serves calls)
            elsewhere = self._executed_elsewhere(self._find(run_id, principal.tenant_filter))
            if elsewhere is not None:
                self._relayed.cancel_soon(elsewhere, reason, principal)
        except OutriderError as error:
            log.warning("could not cancel %s after its caller left: %s", run_id, error.message)

    def _request_cancel(self, active: _Active, reason: str, by: str = "") -> None:
        if active.task is None or active.task.done() or active.cancel_reason:
            return
        active.cancel_reason = reason
        active.run.cancelled_by = by
        active.task.cancel(reason)

    # deleting

    async def delete(self, run_id: str, principal: Principal) -> tuple[run_pb2.Run, int]:
        """Deletes a finished run with its events, interactions and artifacts; returns the run as
        it was and the artifact bytes freed. Active runs are refused: cancel them first."""
        principal.require(Scope.RUNS_DELETE)
        run = self._find(run_id, principal.tenant_filter)
        if run_id in self._active or run.state in ACTIVE_STATES:  # here, or on another replica
            state = run_pb2.RunState.Name(run.state)
            raise FailedPrecondition(
                f"{run.name} is active ({state}); cancel it before deleting it", reason="RUN_ACTIVE"
            )
        freed = self._store.delete_run(run_id)
        if freed is None:
            raise NotFound(f"{run.name} does not exist")
        await self.artifacts.remove_run(run_id)
        return run, freed

    # reading

    def get(self, run_id: str, principal: Principal) -> run_pb2.Run:
        principal.require(Scope.RUNS_READ)
        return self._find(run_id, principal.tenant_filter)

    def _find(self, run_id: str, tenant: str | None) -> run_pb2.Run:
        """The run, when it belongs to `tenant` (any tenant for None), else NotFound."""
        active = self._active.get(run_id)
        if active is not None and tenant in (None, active.run.tenant):
            run = run_pb2.Run()
            run.CopyFrom(active.run)
            run.last_sequence = self.log.last_sequence(run_id) or 0
            return run
        stored = None if active is not None else self._store.get_run(run_id, tenant)
        if stored is None:
            raise NotFound(f"{run_name(run_id)} does not exist")
        return stored

    def list(
        self,
        size: int,
        token: str,
        states: list[int],
        kind: int,
        principal: Principal,
        task_contains: str = "",
        match: search.RunMatch | None = None,
    ) -> tuple[list[run_pb2.Run], str]:
        """Runs of the principal's tenant (every tenant for an admin), newest first; with
        `task_contains`, only those whose task holds that text, with `match` only those it
        matches (see runs/search.py: a page may then be short, even empty, and still have a next
        token)."""
        principal.require(Scope.RUNS_READ)
        limit = paging.page_size(size)
        _check_filters(states, kind)
        text = search.check_text(task_contains)
        match = replace(match, text=text) if match else search.RunMatch(text)
        filters = (states, kind, principal.tenant_filter)
        bound = paging.filter_text(
            states=states,
            kind=kind,
            task_contains=text,
            labels=sorted(f"{k}={v}" for k, v in match.labels.items()),
            updated_since_us=match.updated_since_us,
        )
        before = self.page_tokens.decode("runs", token, filters=bound)
        found = search.find_runs(self._store, limit, before, filters, match) if match else None
        rows = found.runs if found else self._store.list_runs(limit + 1, before, *filters)
        runs = paging.within_bytes(
            [
                self._find(r.name.removeprefix("runs/"), None) if r.state in ACTIVE_STATES else r
                for r in rows[:limit]
            ]
        )
        if len(rows) > limit or len(runs) < len(rows):
            last = runs[-1]
            return runs, self.page_tokens.encode(
                "runs", last.create_time.ToMicroseconds(), last.name.removeprefix("runs/"), bound
            )
        resume = found.resume if found else None
        return runs, self.page_tokens.encode("runs", *resume, bound) if resume else ""

    def count(
        self, states: Sequence[int], kind: int, principal: Principal, match: search.RunMatch
    ) -> int:
        """How many runs `list` would page through (see search.count_runs)."""
        principal.require(Scope.RUNS_READ)
        _check_filters(states, kind)
        return search.count_runs(self._store, (states, kind, principal.tenant_filter), match)

    def watch_batches(
        self,
        run_id: str,
        after: int,
        principal: Principal,
        cancel_on_disconnect: bool = False,
        answer_links: bool = False,
        reauthenticate: Reauthenticate | None = None,
    ) -> AsyncGenerator[WatchBatch, None]:
        """Events after `after`, then live ones until the run ends, in the lists they became
        available in. Errors raise now, not lazily. A principal may always follow the runs it
        started (a streaming start needs no read scope); other runs of its tenant need
        `runs.read`. When the consumer goes away before the run ends and asked for it, the run
        is cancelled. With `answer_links`, request events of pending interactions carry their
        answer link when the principal may be shown it. With `reauthenticate`, the caller's
        credential is checked again before each batch and heartbeat (see stream_checks)."""
        if after < 0:
            raise InvalidArgument.single("after_sequence", "must not be negative")
        run = self._find(run_id, principal.tenant_filter)
        if run.created_by != principal.id:
            principal.require(Scope.RUNS_READ)
        self.log.check_cursor(run_id, after, run.last_sequence)
        batches = self.log.follow_batches(run_id, after, self._settings.heartbeat_interval)
        links = self.answer_links if answer_links and self.answer_links.enabled else None
        batches = checked(batches, run.created_by, principal, reauthenticate, links)
        return self._cancel_if_left(run_id, batches, principal, cancel_on_disconnect)

    def follow(
        self,
        run_id: str,
        after: int,
        principal: Principal,
        cancel_on_disconnect: bool = False,
        answer_links: bool = False,
        reauthenticate: Reauthenticate | None = None,
    ) -> AsyncGenerator[WatchItem, None]:
        """`watch_batches` one event (or heartbeat) at a time; errors raise now, and the watcher
        counts (for shutdown) from now."""
        return _one_by_one(
            self.watch_batches(
                run_id, after, principal, cancel_on_disconnect, answer_links, reauthenticate
            )
        )

    async def _cancel_if_left(
        self,
        run_id: str,
        batches: AsyncGenerator[WatchBatch, None],
        principal: Principal,
        cancel: bool,
    ) -> AsyncGenerator[WatchBatch, None]:
        finished = False
        try:
            async with contextlib.aclosing(batches):
                async for batch in batches:
                    yield batch
            finished = True
        finally:
            if cancel and not finished:
                self.cancel_on_disconnect(run_id, principal)

    def redactors(self) -> tuple[Redactor, ...]:
        """The redactors of the runs in progress (for log lines written meanwhile)."""
        return tuple(active.ctx.redactor for active in self._active.values())

    @property
    def active_count(self) -> int:
        return len(self._active)


async def _one_by_one(batches: AsyncGenerator[WatchBatch, None]) -> AsyncGenerator[WatchItem, None]:
    async with contextlib.aclosing(batches):
        async for batch in batches:
            if isinstance(batch, run_event_pb2.Heartbeat):
                yield batch
                continue
            for event in batch:
                yield event


def _id(run: run_pb2.Run) -> str:
    return run.name.removeprefix("runs/")


def _check_spec(spec: RunSpec, params_at: str, options_at: str) -> None:
    if isinstance(spec.params, params_pb2.AutomateParams):
        validation.check_automate(spec.params, params_at)
    else:
        validation.check_research(spec.params, params_at)
    validation.check_options(spec.options, options_at)
    validation.check_labels(spec.labels)
    if isinstance(spec.params, params_pb2.AutomateParams):
        validation.check_resume_option(spec.params, spec.options, options_at)


def _check_filters(states: Sequence[int], kind: int) -> None:
    for index, state in enumerate(states):
        if state not in run_pb2.RunState.values() or state == run_pb2.RUN_STATE_UNSPECIFIED:
            raise InvalidArgument.single(f"states[{index}]", f"unknown run state {state}")
    if kind not in run_pb2.RunKind.values():
        raise InvalidArgument.single("kind", f"unknown run kind {kind}")


def _failure(ending: Ending) -> run_pb2.RunOutcome:
    return run_pb2.RunOutcome(success=False, error_code=ending.code, error_message=ending.message)


def _ending_of(outcome: run_pb2.RunOutcome) -> Ending:
    if outcome.success:
        return Ending("", "", success=True, result=outcome.result)
    return Ending(outcome.error_code or "TASK_FAILED", outcome.error_message or "the run failed")


def _end_state(outcome: run_pb2.RunOutcome) -> int:
    if outcome.success:
        return run_pb2.RUN_STATE_SUCCEEDED
    return _END_STATES.get(outcome.error_code, run_pb2.RUN_STATE_FAILED)
