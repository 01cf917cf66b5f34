"""The runs this process executes: registered, driven by their agents in tasks of their own, and
ended with their terminal events written and their record saved, however they end (done,
cancelled, crashed, or moved to another replica). Also what adoption asks of a process
(`adoption.RunHost`): runs of a lost replica are executed or closed here."""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Callable, Collection
from dataclasses import dataclass

from outrider.server.core import clock
from outrider.server.core.control.browsers import BrowserControls
from outrider.server.core.events.log import EventLog
from outrider.server.core.events.names import event_name
from outrider.server.core.interactions.broker import InteractionBroker
from outrider.server.core.names import run_id_from
from outrider.server.core.principals import DEFAULT_TENANT
from outrider.server.core.runs.admission import Admission
from outrider.server.core.runs.adoption import Lost, Resumed
from outrider.server.core.runs.agent import Agent, AgentRegistry, RunContext
from outrider.server.core.runs.artifacts import ArtifactStore
from outrider.server.core.runs.attempts import Attempt, closed_complete
from outrider.server.core.runs.checkpoints import Checkpoints
from outrider.server.core.runs.observing import KIND_NAMES, kind_label, observe_end, observe_start
from outrider.server.core.runs.resume_gate import AskBeforeResuming
from outrider.server.core.runs.session_seats import Seat
from outrider.server.core.runs.side_effects import SideEffectJournal
from outrider.server.core.runs.terminal import Ending, RunStats, terminal_payloads
from outrider.server.core.runs.usage import UsageTally
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.secrets.run_secrets import restart_reason
from outrider.server.core.storage import Store
from outrider.server.core.vault.vault import Vault
from outrider.server.core.webhooks.notices import run_ended, run_resumed
from outrider.server.core.webhooks.outbox import Outbox
from outrider.server.settings import Settings
from outrider.server.telemetry import metrics, tracing
from outrider.server.telemetry.logs import RUN_ID
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_event_pb2, run_pb2

log = logging.getLogger("outrider.server.core.runs")  # with runs/observing.py

_END_STATES = {
    "CANCELLED": run_pb2.RUN_STATE_CANCELLED,
}


@dataclass
class ActiveRun:
    """A run this process executes, from its registration to its ending."""

    run: run_pb2.Run
    ctx: RunContext
    task: asyncio.Task[None] | None = None
    cancel_reason: str = ""
    ending: bool = False
    moved: bool = False  # another replica took the run over: this one writes no ending
    saving: asyncio.Task[str | None] | None = None  # its first save, then its launch
    # its caller gave up before the record committed (see idempotent_starts)
    unanswered: bool = False
    seat: Seat | None = None  # its place in a session, when it runs in one

    def give_up(self) -> None:
        """Its caller stopped waiting before the record committed (see `idempotent_starts`)."""
        self.unanswered = True

    @property
    def cancel_message(self) -> str:
        reason = self.cancel_reason or "no reason given"
        by = self.run.cancelled_by
        return f"cancelled by {by}: {reason}" if by else f"cancelled: {reason}"


@dataclass(frozen=True)
class RunServices:
    """What every executed run's context is given, the same for all runs of this process."""

    store: Store
    log: EventLog
    interactions: InteractionBroker
    browsers: BrowserControls
    artifacts: ArtifactStore
    vault: Vault
    outbox: Outbox


class Executions:
    def __init__(self, settings: Settings, agents: AgentRegistry, services: RunServices) -> None:
        self._settings = settings
        self._agents = agents
        self._services = services
        self._store = services.store
        self._log = services.log
        self.active: dict[str, ActiveRun] = {}
        self.admission = Admission(settings.max_concurrent_runs, self._tell_place)
        self.accepting = True
        # another replica could resume a run of this one: its agent's checkpoints are worth saving
        self._resumable_elsewhere = bool(settings.database_url) and settings.failover_resumes > 0

    # what adoption asks of this process (adoption.RunHost)

    def executing(self) -> Collection[str]:
        return self.active.keys()

    def can_execute(self, kind: int) -> bool:
        return self._settings.role != "api" and kind in self._agents and self.accepting

    def room(self) -> int:
        if not self.accepting:
            return 0
        limit = self._settings.max_concurrent_runs + self._settings.max_queued_runs
        return max(limit - len(self.active), 0)

    def adopt(self, run: run_pb2.Run, takeovers: int, resumed: Resumed) -> None:
        run_id = run_id_from(run.name)
        redactor = Redactor()
        last = resumed.lost.last
        self._log.open(run_id, last[-1].sequence if last else 0, redactor=redactor)
        run.state = run_pb2.RUN_STATE_QUEUED
        live = run_pb2.Run()
        live.CopyFrom(run)
        attempt = (takeovers, resumed.side_effects, resumed.lost.attempts)
        active = self.activate(run, live, clock.now_us(), redactor, attempt)
        reason = "the replica executing the run was lost; another replica took it over"
        with self._store.together():  # the resumption and its notice commit together
            active.ctx.emit(run_event_pb2.RunResumed(attempt=takeovers, reason=reason))
            notice = run_resumed(
                run_id, run.tenant or DEFAULT_TENANT, takeovers, resumed.side_effects
            )
            self._services.outbox.report(notice)
        agent = self._agents[run.kind]
        if resumed.ask:
            agent = AskBeforeResuming(agent, resumed.side_effects)
        active.task = asyncio.create_task(self._drive(active, agent), name=run.name)

    def close_lost(self, run: run_pb2.Run, lost: Lost, ending: Ending | None = None) -> None:
        run_id = run_id_from(run.name)
        self._log.open(run_id, lost.last[-1].sequence if lost.last else 0)
        ending = ending or Ending("SERVER_RESTARTED", restart_reason(run))
        stats = RunStats(run.create_time.ToMicroseconds(), 0, 0)
        seen = {event_name(e) for e in lost.last}

        def write_last() -> None:
            for payload in terminal_payloads(run.kind, seen, ending, stats):
                if isinstance(payload, ae.AutomateEvent) and payload.HasField("complete"):
                    closed_complete(payload.complete, lost.attempts)
                self._log.append(run_id, payload)

        self._record_end(run, run_id, run_pb2.RUN_STATE_FAILED, failure(ending), write_last)

    def stop_moved(self, run_id: str) -> None:
        active = self.active.get(run_id)
        if active is not None:
            active.moved = True
            self.request_cancel(active, "taken over by another replica")

    # registering and launching

    def activate(
        self,
        run: run_pb2.Run,
        live: run_pb2.Run,
        started_us: int,
        redactor: Redactor,
        resumed: tuple[int, list[run_event_pb2.SideEffect], list[Attempt]] | None,
        seat: Seat | None = None,
    ) -> ActiveRun:
        """Registers a run this process executes from now on (its log is open); `resumed`:
        the takeover count, side-effect journal and lost attempts of a run taken over; `seat`:
        its place in a session."""
        run_id, services = run_id_from(run.name), self._services
        checkpoints = Checkpoints(
            self._store, run_id, redactor, resumed is not None, self._resumable_elsewhere
        )
        attempt, earlier, lost = resumed or (0, [], [])
        journal = SideEffectJournal(self._store, self._log, run_id, redactor, attempt, earlier)
        automate = run.kind == run_pb2.RUN_KIND_AUTOMATE
        control = services.browsers.open(run_id, redactor) if automate else None
        usage = UsageTally(run, lambda: self._save_record(run_id))
        ctx = RunContext(
            live,
            started_us,
            self._log,
            services.interactions,
            services.artifacts,
            self._store,
            redactor,
            checkpoints,
            journal=journal,
            control=control,
            attempt=attempt,
            lost=lost,
            usage=usage,
            session=seat.view if seat else None,
            vault=services.vault,
            outbox=services.outbox,
        )
        active = ActiveRun(run, ctx, seat=seat)
        self.active[run_id] = active
        metrics.run_active(kind_label(run.kind), +1)
        return active

    def launch(self, active: ActiveRun, agent: Agent, ending: Ending | None = None) -> None:
        """Executes a saved run in a task of its own; with `ending`, ends it at once instead,
        not executed."""
        if active.seat is not None:
            ended = active.seat.begin()  # the session began to end while the run was starting
            if ended and ending is None:
                ending = Ending("CANCELLED", f"cancelled: {ended}")
        if ending is not None:
            self._end(active, ending)
            return
        active.task = asyncio.create_task(self._drive(active, agent), name=active.run.name)

    def forget(self, run_id: str) -> ActiveRun | None:
        """Drops a run registered here that was never saved."""
        active = self.active.pop(run_id, None)
        if active is not None:
            self._log.close(run_id)
            metrics.run_active(kind_label(active.run.kind), -1)
            if active.seat is not None:
                active.seat.leave(None)
        return active

    # driving and ending

    async def _drive(self, active: ActiveRun, agent: Agent) -> None:
        """Runs the agent in this run's own task, span and log context."""
        RUN_ID.set(active.ctx.run_id)
        kind = KIND_NAMES[active.run.kind]
        attributes = {"outrider.run.id": active.ctx.run_id, "outrider.run.kind": kind}
        with tracing.span(f"run {kind}", attributes):
            await self._drive_agent(active, agent)

    async def _drive_agent(self, active: ActiveRun, agent: Agent) -> None:
        outcome: run_pb2.RunOutcome | Ending
        try:
            await self.admission.enter(active.ctx.run_id)
            observe_start(active.run.kind, active.ctx.started_us)
            self._leave_line(active)
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

    def _end(self, active: ActiveRun, outcome: run_pb2.RunOutcome | Ending) -> None:
        active.ending = True
        run_id = active.ctx.run_id
        self._services.interactions.end_run(run_id)
        self._services.browsers.close(run_id)
        if active.moved:  # its events go on elsewhere; local watchers' streams end here
            self._log.close(run_id)
            del self.active[run_id]
            self.admission.leave(run_id)
            if active.seat is not None:
                active.seat.leave(None)
            return
        ending = outcome if isinstance(outcome, Ending) else _ending_of(outcome)
        stats = RunStats(
            active.ctx.started_us, active.ctx.seen["agent:step"], active.ctx.seen["agent:action"]
        )
        final = outcome if isinstance(outcome, run_pb2.RunOutcome) else failure(ending)
        state = _end_state(final)

        def write_last() -> None:
            for payload in terminal_payloads(active.run.kind, active.ctx.seen, ending, stats):
                active.ctx.emit(payload)
            active.ctx.release_last()

        self._record_end(active.run, run_id, state, final, write_last)
        del self.active[run_id]
        self.admission.leave(run_id)
        if active.seat is not None:
            active.seat.leave(active.run)
        observe_end(active.run.kind, active.ctx.started_us, state, final)

    def _tell_place(self, run_id: str, place: int) -> None:
        active = self.active.get(run_id)
        if active is not None and not active.ending:
            active.run.queue_position = place
            active.ctx.emit(run_event_pb2.RunQueued(position=place))
            self._save_record(run_id)

    def _leave_line(self, active: ActiveRun) -> None:
        """The run's turn came: it is in line no more, and its agent starts now (the first
        time: a run resumed elsewhere keeps its first start)."""
        active.run.queue_position = 0
        if not active.run.HasField("start_time"):
            active.run.start_time.CopyFrom(clock.timestamp(clock.now_us()))

    def _save_record(self, run_id: str) -> None:
        """Saves the record of a run executing here as it is now (its usage, its place in
        line); not once it is ending, which saves it with its outcome."""
        active = self.active.get(run_id)
        if active is not None and not active.ending:
            self._store.save_run(active.run, run_id)

    def _record_end(
        self,
        run: run_pb2.Run,
        run_id: str,
        state: int,
        outcome: run_pb2.RunOutcome,
        write_last: Callable[[], None],
    ) -> None:
        """Ends the run: `write_last` appends its last events, which commit with its ended
        record and its notice, so whoever reads `done` (on any replica) finds the run ended."""
        with self._store.together():
            write_last()
            now = clock.timestamp(clock.now_us())
            run.state = state  # type: ignore[assignment]
            run.queue_position = 0
            run.outcome.CopyFrom(outcome)
            run.update_time.CopyFrom(now)
            run.end_time.CopyFrom(now)
            run.last_sequence = self._log.last_sequence(run_id) or run.last_sequence
            self._store.save_run(run, run_id)
            self._services.outbox.report(run_ended(run, run_id))
        self._store.delete_checkpoint(run_id)  # an ended run is never resumed
        self._log.close(run_id)

    def _set_state(self, active: ActiveRun, state: int) -> None:
        if active.ending or active.run.state == state:
            return
        active.run.state = state  # type: ignore[assignment]
        active.run.update_time.CopyFrom(clock.timestamp(clock.now_us()))
        self._store.save_run(active.run, active.ctx.run_id)

    def refresh_state(self, run_id: str) -> None:
        """Sets an executing run's state from its pending interactions."""
        active = self.active.get(run_id)
        if active is None:
            return
        kinds = self._services.interactions.pending_kinds(run_id)
        if kinds & {ip.INTERACTION_KIND_FORM_DATA, ip.INTERACTION_KIND_TAKEOVER}:
            self._set_state(active, run_pb2.RUN_STATE_INPUT_REQUIRED)
        elif ip.INTERACTION_KIND_APPROVAL in kinds:
            self._set_state(active, run_pb2.RUN_STATE_APPROVAL_REQUIRED)
        elif active.run.state != run_pb2.RUN_STATE_QUEUED:
            self._set_state(active, run_pb2.RUN_STATE_RUNNING)

    def request_cancel(self, active: ActiveRun, reason: str, by: str = "") -> None:
        if active.task is None or active.task.done() or active.cancel_reason:
            return
        active.cancel_reason = reason
        active.run.cancelled_by = by
        active.task.cancel(reason)

    def redactors(self) -> tuple[Redactor, ...]:
        """The redactors of the runs in progress (for log lines written meanwhile)."""
        return tuple(active.ctx.redactor for active in self.active.values())


def failure(ending: Ending) -> run_pb2.RunOutcome:
    return run_pb2.RunOutcome(success=False, error_code=ending.code, error_message=ending.message)


def _ending_of(outcome: run_pb2.RunOutcome) -> Ending:
    if outcome.success:
        return Ending("", "", success=True, result=outcome.result)
    return Ending(outcome.error_code or "TASK_FAILED", outcome.error_message or "the run failed")


def _end_state(outcome: run_pb2.RunOutcome) -> int:
    if outcome.success:
        return run_pb2.RUN_STATE_SUCCEEDED
    return _END_STATES.get(outcome.error_code, run_pb2.RUN_STATE_FAILED)
