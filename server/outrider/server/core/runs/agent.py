"""What the core asks of an agent, and what it offers one while it runs."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol

from google.protobuf.message import Message

from outrider.server.core.control.run_control import RunControl
from outrider.server.core.events.log import EventLog
from outrider.server.core.events.names import payload_event_name
from outrider.server.core.interactions.broker import InteractionBroker
from outrider.server.core.interactions.resolutions import ApprovalAnswer, InputAnswer
from outrider.server.core.principals import DEFAULT_TENANT
from outrider.server.core.runs.artifacts import ArtifactStore
from outrider.server.core.runs.attempts import Attempt, counting_every_attempt
from outrider.server.core.runs.checkpoints import Checkpoints
from outrider.server.core.runs.session_seats import SessionView
from outrider.server.core.runs.side_effects import SideEffectJournal
from outrider.server.core.runs.usage import UsageTally
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.storage import Store
from outrider.server.core.vault.checks import origin_of
from outrider.server.core.vault.vault import Vault
from outrider.server.core.webhooks.notices import profile_login_required
from outrider.server.core.webhooks.outbox import Outbox
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import params_pb2, profile_pb2, run_event_pb2, run_pb2


class Agent(Protocol):
    """Does the work of one kind of run.

    It emits its events through the context, its own terminal events included when it ends
    normally, and returns how the run ended. Cancellation arrives as asyncio.CancelledError; the
    core then emits whatever terminal events are still missing.
    """

    def preflight(self, params: Params, options: params_pb2.RunOptions) -> None:
        """Raises an OutriderError when such a run cannot start (e.g. no model for a role)."""

    async def readiness(self) -> str:
        """'' when a run can start here with the server's own settings (its default model, its
        browser); else why not, in one line. Asked once, at start (see core/runs/readiness.py)."""

    async def run(self, ctx: RunContext) -> run_pb2.RunOutcome: ...

    async def aclose(self) -> None:
        """Releases what the agent holds across runs (browsers, clients); called at shutdown."""


Params = params_pb2.AutomateParams | params_pb2.ResearchParams
AgentRegistry = Mapping[int, Agent]  # RunKind -> the agent serving it

# The events that end a run's stream, by kind. The context holds them back until the core writes
# the run's ending (execution.py), and they commit with its ended record: whoever reads one finds
# the run ended, and a replica lost in between cannot leave a run ended by its events alone.
_LAST_EVENTS = {
    run_pb2.RUN_KIND_AUTOMATE: frozenset({"complete", "done"}),
    run_pb2.RUN_KIND_RESEARCH: frozenset({"complete", "error"}),
}


class RunContext:
    """One run as its agent sees it: parameters (secret values included, unlike the stored
    run), event emission, questions to the caller, the run's one redactor, its checkpoints and
    its side-effect journal (None when the core keeps none, e.g. in unit-level uses), what it
    has used (steps, tokens, cost: Run.usage; None likewise), for a browser run the control
    of its live browser (watchers, takeovers, the gate that pauses the agent), for a run in a
    session the session as it sees it (None otherwise), the vault its profile and
    credentials are opened from, and the outbox its notices go to (None: it writes none)."""

    def __init__(
        self,
        run: run_pb2.Run,
        started_us: int,
        log: EventLog,
        interactions: InteractionBroker,
        artifacts: ArtifactStore,
        store: Store,
        redactor: Redactor | None = None,
        checkpoints: Checkpoints | None = None,
        control: RunControl | None = None,
        journal: SideEffectJournal | None = None,
        attempt: int = 0,
        lost: Sequence[Attempt] = (),
        usage: UsageTally | None = None,
        session: SessionView | None = None,
        vault: Vault | None = None,
        outbox: Outbox | None = None,
    ) -> None:
        self.run_id = run.name.removeprefix("runs/")
        self.kind = run.kind
        self.options = run.options
        self.started_us = started_us
        self.seen: Counter[str] = Counter()
        self.questions = 0  # questions put to the caller so far (form data, approvals)
        self._run = run
        self._log = log
        self._interactions = interactions
        self._artifacts = artifacts
        self.store = store  # what an agent keeps across runs (browser recipes) lives there too
        self._standing_decisions: dict[str, ApprovalAnswer] = {}
        self.redactor = redactor if redactor is not None else Redactor()
        self.checkpoints = checkpoints
        self.control = control
        self.journal = journal
        self.attempt = attempt  # times the run was taken over after its replica was lost
        self._lost = lost  # the attempts before this one (their replicas were lost)
        self._usage = usage
        self.session = session
        self.vault = vault  # the tenant's profiles and credentials the run names (core/vault/)
        self._outbox = outbox
        self._held_last: list[tuple[Message, str]] = []  # see _LAST_EVENTS

    @property
    def tenant(self) -> str:
        return self._run.tenant

    @property
    def labels(self) -> Mapping[str, str]:
        """The labels the starting edge gave the run (Run.labels)."""
        return self._run.labels

    @property
    def automate(self) -> params_pb2.AutomateParams:
        return self._run.automate

    @property
    def research(self) -> params_pb2.ResearchParams:
        return self._run.research

    def emit(self, payload: Message, artifact: str = "") -> None:
        """Appends one event (an AutomateEvent, a ResearchEvent or one of our own) to the run,
        or holds it until the run's ending when it is one of the last (_LAST_EVENTS); a resumed
        run's `complete` counts and names every attempt (attempts.py)."""
        name = payload_event_name(payload) or payload.DESCRIPTOR.name
        self.seen[name] += 1
        if self._lost:
            effects = self.journal.entries if self.journal else []
            payload = counting_every_attempt(payload, self._lost, effects)
        if name in _LAST_EVENTS.get(self.kind, ()):
            self._held_last.append((payload, artifact))
        else:
            self._log.append(self.run_id, payload, artifact)
        if self._usage is not None:
            self._usage.saw(name)

    def release_last(self) -> None:
        """Appends the held last events, in the order they were emitted (the core calls it while
        it writes the run's ending)."""
        held, self._held_last = self._held_last, []
        for payload, artifact in held:
            self._log.append(self.run_id, payload, artifact)

    def profile_signed_out(self, event: profile_pb2.ProfileNeedsLogin) -> None:
        """The run's profile failed its check: the event, and, when no credential lets the agent
        log in itself, the profile.login_required notice committed with it."""
        with self.store.together():
            self.emit(event)
            if self._outbox is not None and not event.credentials:
                tenant = self.tenant or DEFAULT_TENANT
                origin = origin_of(event.check_url)
                notice = profile_login_required(event.profile, tenant, origin, self.run_id)
                self._outbox.report(notice)

    def count_usage(self, input_tokens: int, output_tokens: int, cost_usd: float | None) -> None:
        """One model call of the run: its tokens and, when its model has a price, its estimated
        cost in US dollars (Run.usage)."""
        if self._usage is not None:
            self._usage.add(input_tokens, output_tokens, cost_usd)

    async def ask_input(
        self, request: ae.InteractiveFormDataRequest, field_errors: dict[str, str] | None = None
    ) -> InputAnswer:
        self.questions += 1
        async with self._waiting_for_a_person():
            return await self._interactions.ask_input(
                self.run_id, request, field_errors, self.attempt
            )

    def _waiting_for_a_person(self) -> AbstractAsyncContextManager[None]:
        """While the agent waits for an answer, a person may take its browser over."""
        return self.control.gate.idle() if self.control else contextlib.nullcontext()

    async def ask_approval(
        self, request: run_event_pb2.ApprovalRequested, standing_key: str | None = None
    ) -> ApprovalAnswer:
        """Asks the caller, unless an earlier "always" decision for `standing_key` answers it."""
        if standing_key is not None and standing_key in self._standing_decisions:
            return self._standing_decisions[standing_key]
        self.questions += 1
        async with self._waiting_for_a_person():
            answer = await self._interactions.ask_approval(self.run_id, request, self.attempt)
        if standing_key is not None and answer.scope == run_event_pb2.APPROVAL_SCOPE_ALWAYS:
            self._standing_decisions[standing_key] = answer
        return answer

    def save_artifact(self, data: bytes, content_type: str) -> str:
        return self._artifacts.save(self.run_id, data, content_type)
