"""What the templates show of a run: labels, classes and permissions, worked out once here so
the templates stay plain."""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.timestamp_pb2 import Timestamp

from outrider.server.console_edge import figures, reasons
from outrider.server.core import clock
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.runs.search import task_text
from outrider.v1 import run_pb2

STATE_LABELS = {
    run_pb2.RUN_STATE_QUEUED: ("Queued", "queued"),
    run_pb2.RUN_STATE_RUNNING: ("Running", "running"),
    run_pb2.RUN_STATE_INPUT_REQUIRED: ("Needs input", "waiting"),
    run_pb2.RUN_STATE_APPROVAL_REQUIRED: ("Needs approval", "waiting"),
    run_pb2.RUN_STATE_SUCCEEDED: ("Succeeded", "succeeded"),
    run_pb2.RUN_STATE_FAILED: ("Failed", "failed"),
    run_pb2.RUN_STATE_CANCELLED: ("Cancelled", "cancelled"),
}
KIND_LABELS = {run_pb2.RUN_KIND_AUTOMATE: "Browser", run_pb2.RUN_KIND_RESEARCH: "Research"}
ACTIVE = frozenset(
    {
        run_pb2.RUN_STATE_QUEUED,
        run_pb2.RUN_STATE_RUNNING,
        run_pb2.RUN_STATE_INPUT_REQUIRED,
        run_pb2.RUN_STATE_APPROVAL_REQUIRED,
    }
)
WAITING = frozenset({run_pb2.RUN_STATE_INPUT_REQUIRED, run_pb2.RUN_STATE_APPROVAL_REQUIRED})

# The runs page's state filter: a name in the URL -> the states it lists.
STATE_FILTERS: dict[str, tuple[str, tuple[int, ...]]] = {
    "": ("Any state", ()),
    "waiting": ("Waiting for a person", tuple(sorted(WAITING))),
    "active": ("Active", tuple(sorted(ACTIVE))),
    "queued": ("Queued", (run_pb2.RUN_STATE_QUEUED,)),
    "running": ("Running", (run_pb2.RUN_STATE_RUNNING,)),
    "succeeded": ("Succeeded", (run_pb2.RUN_STATE_SUCCEEDED,)),
    "failed": ("Failed", (run_pb2.RUN_STATE_FAILED,)),
    "cancelled": ("Cancelled", (run_pb2.RUN_STATE_CANCELLED,)),
}
KIND_FILTERS: dict[str, tuple[str, int]] = {
    "": ("Any kind", run_pb2.RUN_KIND_UNSPECIFIED),
    "browser": ("Browser", run_pb2.RUN_KIND_AUTOMATE),
    "research": ("Research", run_pb2.RUN_KIND_RESEARCH),
}


@dataclass(frozen=True)
class RunView:
    id: str
    kind: str
    state: str
    state_class: str
    task: str
    url: str
    created: Timestamp
    ended: Timestamp
    created_by: str
    cancelled_by: str
    tenant: str
    active: bool
    waiting: bool
    success: bool
    error_code: str
    error_message: str
    can_cancel: bool
    can_delete: bool
    can_answer: bool
    last_sequence: int
    started: Timestamp  # when the agent began (unset while queued)
    queue_position: int
    steps: int
    actions: int
    input_tokens: int
    output_tokens: int
    cost: float | None  # estimated, US dollars; None when no model of it has a price
    host: str  # of the start page
    duration: float | None  # seconds the agent has run (so far), None before it began
    error_words: str
    waiting_for: str  # "browser" (a takeover asked for), "question", or "" when not waiting
    session: str  # the session it ran in ("sessions/..."), or ""

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def queued(self) -> bool:
        return self.state_class == "queued"


def run_view(run: run_pb2.Run, principal: Principal, waiting_for: str = "") -> RunView:
    state, state_class = STATE_LABELS.get(run.state, ("Unknown", "unknown"))
    automate = run.HasField("automate")
    active = run.state in ACTIVE
    usage = run.usage
    return RunView(
        id=run.name.removeprefix("runs/"),
        kind=KIND_LABELS.get(run.kind, "Run"),
        state=state,
        state_class=state_class,
        task=task_text(run),
        url=run.automate.url if automate else "",
        created=run.create_time,
        ended=run.end_time,
        created_by=run.created_by,
        cancelled_by=run.cancelled_by,
        tenant=run.tenant,
        active=active,
        waiting=run.state in WAITING,
        success=run.outcome.success,
        error_code=run.outcome.error_code,
        error_message=run.outcome.error_message,
        can_cancel=active and may(principal, Scope.RUNS_CANCEL),
        can_delete=not active and may(principal, Scope.RUNS_DELETE),
        can_answer=may(principal, Scope.INTERACTIONS_ANSWER),
        last_sequence=run.last_sequence,
        started=run.start_time,
        queue_position=run.queue_position if run.state == run_pb2.RUN_STATE_QUEUED else 0,
        steps=usage.steps,
        actions=usage.actions,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost=usage.estimated_cost_usd if usage.HasField("estimated_cost_usd") else None,
        host=figures.host(run.automate.url) if automate else "",
        duration=_duration(run),
        error_words=reasons.words(run.outcome.error_code, run.outcome.error_message),
        waiting_for=waiting_for if run.state in WAITING else "",
        session=run.options.session,
    )


def _duration(run: run_pb2.Run) -> float | None:
    """Seconds from the agent's start to the run's end (or now, while it runs)."""
    if not run.HasField("start_time"):
        return None
    started = run.start_time.ToMicroseconds()
    ended = run.end_time.ToMicroseconds() if run.HasField("end_time") else clock.now_us()
    return max(ended - started, 0) / 1_000_000


def may(principal: Principal, scope: Scope) -> bool:
    return principal.is_admin or scope in principal.scopes
