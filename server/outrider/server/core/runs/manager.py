"""The run manager: creates runs, drives their agents, ends them properly, and serves them.

Every public call takes the calling principal: it needs the call's scope, and it reaches only runs
of its own tenant (an admin reaches all); another tenant's run is NOT_FOUND, like a missing one.
The work is shared out: `starting` starts runs, `execution` drives and ends those executed here,
`reading` reads runs and their events back; this class composes them with the interactions, the
live browsers and the calls relayed to other replicas, and leads the process's lifecycle.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Mapping

from outrider.server.core import paging, validation
from outrider.server.core.cluster.failover import OrphanKey
from outrider.server.core.cluster.presence import presence_patience
from outrider.server.core.cluster.relay import ExecutedElsewhere, Relay, through_outage
from outrider.server.core.cluster.relayed_cancels import RelayedCancels
from outrider.server.core.control.browsers import BrowserControls
from outrider.server.core.errors import FailedPrecondition, NotFound, OutriderError
from outrider.server.core.events.log import EventLog, WatchBatch, WatchItem
from outrider.server.core.interactions.answer_links import AnswerLinks
from outrider.server.core.interactions.answers import Answers
from outrider.server.core.interactions.broker import InteractionBroker
from outrider.server.core.names import run_id_from
from outrider.server.core.principals import DEFAULT_TENANT, Principal, Scope
from outrider.server.core.request_ids import Started
from outrider.server.core.runs.adoption import Adoption
from outrider.server.core.runs.agent import AgentRegistry
from outrider.server.core.runs.artifacts import ArtifactStore
from outrider.server.core.runs.execution import ActiveRun, Executions, RunServices
from outrider.server.core.runs.idempotent_starts import START_WAIT
from outrider.server.core.runs.profile_logins import login_spec
from outrider.server.core.runs.quotas import QuotaDefaults, Quotas
from outrider.server.core.runs.readiness import Readiness, check_agents
from outrider.server.core.runs.reading import RunReader, one_by_one
from outrider.server.core.runs.session_seats import SessionSeats
from outrider.server.core.runs.starting import RunSpec, Starter
from outrider.server.core.runs.stream_checks import Reauthenticate
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.shutdown import LAST_DELIVERY, ending_bound
from outrider.server.core.storage import ACTIVE_STATES, Store
from outrider.server.core.storage.contract import SIGNING_SECRET
from outrider.server.core.vault.credentials import Credentials
from outrider.server.core.vault.profiles import Profiles
from outrider.server.core.vault.vault import Vault
from outrider.server.core.webhooks.egress import Egress, NoEgress
from outrider.server.core.webhooks.outbox import Outbox
from outrider.server.core.webhooks.questions import QuestionNotices
from outrider.server.core.webhooks.sealing import CredentialSeal
from outrider.server.core.webhooks.service import Webhooks
from outrider.server.settings import Settings
from outrider.server.telemetry import metrics
from outrider.v1 import run_pb2

log = logging.getLogger("outrider.server.core.runs")  # with runs/observing.py


class RunManager:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        agents: AgentRegistry,
        relay: Relay | None = None,
        egress: Egress | None = None,
    ) -> None:
        self._settings = settings
        self._store = store
        self._relay = relay
        self.log = EventLog(store, settings.watcher_buffer, settings.store_unready_after)
        secret = settings.page_token_secret
        # Signs page tokens; answer links and console sessions use keys derived from it. Every
        # replica must hold the same: the operator's secret, else the database's shared one
        # (PostgreSQL), else the data directory's key file (SQLite: one process).
        shared = secret.get_secret_value() if secret else store.shared_secret(SIGNING_SECRET)
        self.signing_key = paging.load_key(shared, settings.data_dir)
        self.page_tokens = paging.PageTokens(self.signing_key)
        outbox = Outbox(store)
        self.interactions = InteractionBroker(
            store,
            self.log,
            settings.interaction_ttl,
            lambda run_id: self._executions.refresh_state(run_id),
            self.page_tokens,
            paging.derived_key(self.signing_key, "answer digests"),
            QuestionNotices(outbox, self._tenant_of),
        )
        # how long a relayed call waits for its executor's presence (a database restart drops
        # every replica's; each takes it back within a second)
        self._patience = presence_patience(settings.failover_interval)
        self.answers = Answers(self.interactions, store, relay, self._patience)
        self._relayed = RelayedCancels(store, relay, self._patience, lambda i: self._find(i, None))
        self.browsers = BrowserControls(
            self.interactions,
            store,
            relay,
            (settings.takeover_ttl, settings.takeover_grace),
            lambda run_id, tenant: self._find(run_id, tenant),
            self._patience,
        )
        self.answer_links = AnswerLinks(
            paging.derived_key(self.signing_key, "answer links"),
            settings.public_url or "",
            settings.console and settings.rest_enabled,
            self.interactions,
            self.answers,
            store.run_tenant,
        )
        self.webhooks = Webhooks(
            store,
            outbox,
            egress or NoEgress(),
            self.page_tokens,
            settings.webhooks,
            self.answer_links.url if self.answer_links.enabled else None,
            CredentialSeal(paging.derived_key(self.signing_key, "webhook credentials")),
        )
        self.artifacts = ArtifactStore(store)
        self.vault = Vault(store, settings.vault, self.page_tokens)  # profiles and credentials
        self.profiles, self.credentials = Profiles(self.vault), Credentials(self.vault)
        services = RunServices(
            store, self.log, self.interactions, self.browsers, self.artifacts, self.vault, outbox
        )
        self._executions = Executions(settings, agents, services)
        self._active: Mapping[str, ActiveRun] = self._executions.active
        self._agents = agents
        self.readiness = Readiness()  # until check_readiness: nothing known against it
        self.adoption = Adoption(
            store, self.interactions, self._executions, settings.failover_resumes
        )
        quotas = Quotas(
            QuotaDefaults(
                settings.principal_max_concurrent_runs,
                settings.principal_starts_per_minute,
                settings.principal_start_burst,
            )
        )
        self._reader = RunReader(
            store,
            self.log,
            self._executions.active,
            self.page_tokens,
            self.answer_links,
            settings.heartbeat_interval,
        )
        self._find = self._reader.find
        self._starter = Starter(
            settings, store, self.log, agents, self._executions, quotas, self._find, self.vault
        )
        self._starter.session_relay = (relay, self._patience) if relay is not None else None
        # reading (see reading.RunReader)
        self.get = self._reader.get
        self.list = self._reader.list
        self.count = self._reader.count
        self.events = self._reader.events
        metrics.server_info(settings.max_concurrent_runs)

    def _tenant_of(self, run_id: str) -> str | None:
        """A run's tenant: from memory while it is executed here, else from the store."""
        active = self._active.get(run_id)
        if active is not None:
            return active.run.tenant or DEFAULT_TENANT
        return self._store.run_tenant(run_id)

    # lifecycle

    def recover(self) -> int:
        """Closes, as failed with terminal events, the runs a previous process left active
        (see `Adoption.recover`)."""
        return self.adoption.recover()

    def sweep_orphans(
        self, seen_before: Mapping[OrphanKey, int]
    ) -> tuple[int, dict[OrphanKey, int]]:
        """Takes over the runs of a replica that died (see `Adoption.sweep`)."""
        return self.adoption.sweep(seen_before)

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
        if not self._executions.accepting:
            return "SHUTTING_DOWN"
        if self.store_down_for() > self._settings.store_unready_after:
            return "STORE_UNREACHABLE"
        return "" if self.readiness.ready else "NO_AGENT_CAN_RUN"

    def store_down_for(self) -> float:
        """Seconds this replica has not reached its store (0.0 while it does)."""
        return self._store.unreachable_for()

    def stop_accepting(self) -> None:
        """From now on `start` refuses with Unavailable."""
        self._executions.accepting = False

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
                self._executions.request_cancel(active, "the server is shutting down")
            if late:
                await asyncio.wait(late, timeout=max(deadline - loop.time(), 0.0))
        self._store.flush()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(deadline - loop.time(), LAST_DELIVERY)):
                await self.log.nobody_watching()
        if self.log.watching:
            log.warning("%d watchers are still reading; their streams close now", self.log.watching)

    # starting

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
        edge checked it), a start repeating an earlier one returns that run (see
        `idempotent_starts`). Returns once the run's record is committed, readable by every
        replica."""
        relaying = self._settings.role == "api" and self._relay is not None
        relay = (self._relay, self._patience) if relaying and self._relay else None
        where = (params_at, options_at)
        return await self._starter.start(spec, principal, where, request_id, relay)

    async def start_profile_login(
        self, profile: str, url: str, allowed_domains: list[str], principal: Principal
    ) -> Started:
        """Starts the by-hand run that logs `profile` in (see `profile_logins`)."""
        spec = login_spec(self.profiles, principal, profile, url, allowed_domains)
        return await self.start(spec, principal, params_at="", options_at="")

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
            reason = reason or "cancelled by the caller"
            self._executions.request_cancel(active, reason, principal.id)
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
            self._executions.request_cancel(active, reason, principal.id)

    def _executed_elsewhere(self, run: run_pb2.Run) -> ExecutedElsewhere | None:
        run_id = run_id_from(run.name)
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
                self._executions.request_cancel(active, reason, principal.id)
            return
        try:  # executed by another replica (a worker, when this one only serves calls)
            elsewhere = self._executed_elsewhere(self._find(run_id, principal.tenant_filter))
            if elsewhere is not None:
                self._relayed.cancel_soon(elsewhere, reason, principal)
        except OutriderError as error:
            log.warning("could not cancel %s after its caller left: %s", run_id, error.message)

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

    # following (see reading.RunReader.watch_batches)

    def watch_batches(
        self,
        run_id: str,
        after: int,
        principal: Principal,
        cancel_on_disconnect: bool = False,
        answer_links: bool = False,
        reauthenticate: Reauthenticate | None = None,
    ) -> AsyncGenerator[WatchBatch, None]:
        """Events after `after`, then live ones until the run ends (see RunReader); when the
        consumer goes away before the run ends and asked for it, the run is cancelled."""
        left = self.cancel_on_disconnect if cancel_on_disconnect else None
        return self._reader.watch_batches(
            run_id, after, principal, left, answer_links, reauthenticate
        )

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
        return one_by_one(
            self.watch_batches(
                run_id, after, principal, cancel_on_disconnect, answer_links, reauthenticate
            )
        )

    # sessions (core/sessions/, the room above, keeps them)

    def seat_sessions(self, seats: SessionSeats) -> None:
        """Sessions are kept: a start naming one takes its seat there."""
        self._starter.seats = seats

    def check_session_quota(self, principal: Principal) -> None:
        """Refuses a new session when the principal already holds its maximum of concurrent runs
        (a session counts as one: it holds a browser)."""
        self._starter.concurrency_check(principal)

    def winding_down(self, run_id: str) -> bool:
        """The run (executed here) has its outcome: its agent emitted `complete`, or it is
        being ended; only its last steps (closing, saving) are left."""
        active = self._active.get(run_id)
        if active is None:
            return True
        finished = active.task is not None and active.task.done()
        return active.ending or finished or bool(active.ctx.seen["complete"])

    def cancel_for_session(self, run_id: str, message: str, by: str = "") -> None:
        """Cancels a run of a session this process is ending (the run executes here too)."""
        active = self._active.get(run_id)
        if active is not None:
            self._executions.request_cancel(active, message, by)

    def redactors(self) -> tuple[Redactor, ...]:
        """The redactors of the runs in progress (for log lines written meanwhile)."""
        return self._executions.redactors()

    @property
    def active_count(self) -> int:
        return len(self._active)
