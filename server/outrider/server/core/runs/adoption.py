"""Adoption of the runs a process that is gone left active: which ones, who claims each, and
whether the claimant resumes it or ends it. The process's executions carry out the verdict
(`RunHost`). (Not a person taking over a browser: that is core/control/.)

At start-up a process closes the runs a previous process left active (on SQLite, every active
run; on PostgreSQL, those whose owner holds no presence lock). While replicas share a store,
each sweeps periodically (`FailoverSweeper`) and takes over what a dead replica left.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Protocol

from outrider.server.core.cluster.claim_share import PATIENCE, share_of
from outrider.server.core.events.names import event_name
from outrider.server.core.interactions.broker import InteractionBroker
from outrider.server.core.names import run_id_from
from outrider.server.core.runs.resume_gate import (
    ASK,
    END,
    REPEAT,
    can_be_asked,
    policy_of,
    unsafe_ending,
)
from outrider.server.core.runs.side_effects import describe
from outrider.server.core.runs.terminal import Ending
from outrider.server.core.secrets.redaction import holds_placeholders
from outrider.server.core.storage import ACTIVE_STATES, Store
from outrider.server.telemetry import metrics
from outrider.v1 import run_event_pb2, run_pb2

log = logging.getLogger(__name__)
SESSION_LOST = "SESSION_LOST"


class RunHost(Protocol):
    """What adoption needs of the process that adopts (runs/execution.py)."""

    def executing(self) -> Collection[str]:
        """Ids of the runs this process executes."""

    def can_execute(self, kind: int) -> bool:
        """Whether this process may start executing a run of `kind` now."""

    def room(self) -> int:
        """How many more runs this process may hold (free slots plus room in its queue)."""

    def adopt(self, run: run_pb2.Run, takeovers: int, resumed: Resumed) -> None:
        """Executes a lost run here after the events it has (`resumed.last`: its newest ones),
        from the start of its task or from the checkpoint its agent saved
        (`RunContext.checkpoints`), asking first when `resumed.ask`."""

    def close_lost(
        self, run: run_pb2.Run, last: list[run_event_pb2.RunEvent], ending: Ending | None = None
    ) -> None:
        """Ends a lost run as failed (`ending`, by default SERVER_RESTARTED) with terminal
        events after `last`."""

    def stop_moved(self, run_id: str) -> None:
        """Stops, without writing an ending, a run another process took over."""


@dataclass(frozen=True)
class Resumed:
    """What the claimant of a lost run knows of it when it resumes it."""

    last: list[run_event_pb2.RunEvent]  # its newest events
    side_effects: list[run_event_pb2.SideEffect]  # its journal, every earlier attempt's
    ask: bool  # ask the caller before starting the task again (resume_gate)


class Adoption:
    def __init__(
        self, store: Store, interactions: InteractionBroker, host: RunHost, resumes: int
    ) -> None:
        self._store = store
        self._interactions = interactions
        self._host = host
        self._resumes = resumes
        self._epoch = store.presence_epoch()

    def recover(self) -> int:
        """Closes, as failed with terminal events, the runs a previous process left active.
        Runs other live processes execute (sharing a PostgreSQL store) are left alone."""
        stale = self._store.active_runs()
        active = self._store.list_runs(1_000_000, None, ACTIVE_STATES, 0)
        # Interactions of active runs are closed by whoever executes them, or by the claimant
        # of a stale one (after its claim: writes to a run are fenced by its owner).
        self._interactions.close_abandoned({run_id_from(r.name) for r in active})
        return self._take_over(stale, resume=False)

    def sweep(self, seen_before: Mapping[str, int]) -> tuple[int, dict[str, int]]:
        """While replicas share a store: takes over the active runs of a replica that died (its
        presence lock is gone), once they were nobody's at the previous sweep too
        (`seen_before`: run id -> sweeps in a row it was nobody's): a replica whose session
        PostgreSQL dropped (a restart) takes its lock again meanwhile. It claims its part of an
        even spread over the live replicas (cluster/claim_share.py), oldest runs first, and runs
        that waited `PATIENCE` more sweeps while it has room. One replica claims each run, so its
        events are written once; it resumes the run (up to OUTRIDER_FAILOVER_RESUMES times) or
        ends it. Runs executed here that another replica took over (this one was cut off) stop
        here. Returns how many runs it took over and the orphans seen now, with their count."""
        for run_id in self._store.taken_over(list(self._host.executing())):
            log.warning("runs/%s was taken over by another replica; stopping it here", run_id)
            self._host.stop_moved(run_id)
        executing = self._host.executing()
        orphans = [r for r in self._store.active_runs() if run_id_from(r.name) not in executing]
        epoch = self._store.presence_epoch()
        if epoch != self._epoch:  # this replica was cut off meanwhile: what it saw is stale
            self._epoch, seen_before = epoch, {}
        stale = [r for r in orphans if run_id_from(r.name) in seen_before]
        if not stale:
            return 0, {run_id_from(r.name): 1 for r in orphans}
        room = self._host.room()
        share = share_of(len(stale), self._store.worker_loads(), room)
        waited = [r for r in stale if seen_before[run_id_from(r.name)] > PATIENCE]
        taken = self._take_over(stale, resume=True, limit=share)
        if taken < room and waited:  # its replica never came: anyone with room claims it
            taken += self._take_over(waited, resume=True, limit=room - taken)
        seen = {run_id_from(r.name): seen_before.get(run_id_from(r.name), 0) + 1 for r in orphans}
        return taken, seen

    def _take_over(self, stale: list[run_pb2.Run], resume: bool, limit: int = 1 << 30) -> int:
        """Claims runs of `stale` (up to `limit`) and resumes or closes each."""
        taken = 0
        for run in stale:
            if taken >= limit:
                break
            run_id = run_id_from(run.name)
            takeovers = self._store.claim_orphan(run_id)
            if takeovers is None:
                continue  # another replica claimed it first
            taken += 1
            try:  # only the claimant cancels what the lost agent asked
                self._interactions.close_pending_of(run_id)
                last = self._store.last_events(run_id, 2)  # read after the claim: complete
                if run.options.session:  # its session's browser went with the lost replica
                    self._host.close_lost(run, last, self._session_lost(run))
                    metrics.takeover("closed")
                elif resume and self._resumable(run, takeovers, last):
                    self._resume(run, takeovers, last)
                else:
                    self._host.close_lost(run, last)
                    metrics.takeover("closed")
            except Exception:  # one run's failure must not leave the others unhandled
                log.exception("taking over %s failed", run.name)
        self._store.flush()
        return taken

    def _session_lost(self, run: run_pb2.Run) -> Ending:
        """A run in a session ends with it: it is never started again in a fresh browser as if
        that were the session's. What it had done is listed, as for RESUME_UNSAFE."""
        automate = run.HasField("automate")
        effects = self._store.side_effects(run_id_from(run.name)) if automate else []
        done = f" It had done what follows, which may have taken effect:\n{describe(effects)}"
        return Ending(
            SESSION_LOST,
            f"{SESSION_LOST}: the replica holding {run.options.session} was lost, and the "
            "session's browser with it; the run is not started again in another browser."
            + (done if effects else ""),
        )

    def _resume(self, run: run_pb2.Run, takeovers: int, last: list[run_event_pb2.RunEvent]) -> None:
        """Resumes the run, unless its journal says that starting again could repeat a side
        effect and the run's policy does not allow it (resume_gate)."""
        automate = run.HasField("automate")
        effects = self._store.side_effects(run_id_from(run.name)) if automate else []
        policy = policy_of(run) if effects else REPEAT
        if policy == ASK and not can_be_asked(run):
            policy = END  # nobody could answer (a run stored before the option was checked)
        if policy == END:
            log.warning(
                "ending %s: %d side effects, not repeated (RESUME_UNSAFE)", run.name, len(effects)
            )
            self._host.close_lost(run, last, unsafe_ending(effects))
            metrics.takeover("ended_unsafe")
            return
        asking = " (asking the caller first)" if policy == ASK else ""
        log.warning(
            "resuming %s (takeover %d, %d side effects)%s",
            run.name,
            takeovers,
            len(effects),
            asking,
        )
        self._host.adopt(run, takeovers, Resumed(last, effects, ask=policy == ASK))
        metrics.takeover("asked" if policy == ASK else "resumed")

    def _resumable(
        self, run: run_pb2.Run, takeovers: int, last: list[run_event_pb2.RunEvent]
    ) -> bool:
        secret = run.HasField("automate") and holds_placeholders(run.automate.data)
        if takeovers > self._resumes or secret or not self._host.can_execute(run.kind):
            return False
        ending = {event_name(e) for e in last}
        return not ending & {"complete", "done"}  # it had finished: only its ending is missing
