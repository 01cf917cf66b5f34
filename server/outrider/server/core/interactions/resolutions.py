"""What an interaction's resolution tells its agent, the event that reports it, and the refusals
of answers that come too late: shared by the broker's three kinds (form data, approval,
takeover)."""

from __future__ import annotations

from dataclasses import dataclass

from outrider.server.core.cluster.relay import ExecutedElsewhere
from outrider.server.core.errors import FailedPrecondition
from outrider.server.telemetry import metrics
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import browser_control_pb2 as bc
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_event_pb2 as rp


@dataclass(frozen=True)
class InputAnswer:
    """What the agent learns of a form-data request. `values` go into the page, nowhere else.
    `declined`: fields the person declined to give while giving the others (a secret declined
    on the answer page after the plain fields were given)."""

    submitted: bool
    values: dict[str, str]
    source: int
    resolved_by: str = ""  # principal id of the caller who answered
    declined: tuple[str, ...] = ()


@dataclass(frozen=True)
class ApprovalAnswer:
    decision: int
    scope: int
    reason: str
    source: int
    resolved_by: str = ""


@dataclass(frozen=True)
class TakeoverAnswer:
    """How a takeover ended (bc.TakeoverEnding), who ended it and their note; `driver` (who
    had control last, if anyone took it), `url` and `input_events` describe the browser as the
    person left it."""

    ending: int
    resolved_by: str = ""
    note: str = ""
    driver: str = ""
    url: str = ""
    input_events: int = 0


Answer = InputAnswer | ApprovalAnswer | TakeoverAnswer


def closing_answer(kind: int, source: int) -> Answer:
    """The resolution of an interaction nobody answered: expired, or its run ended."""
    expired = source == rp.RESOLUTION_SOURCE_EXPIRED
    if kind == ip.INTERACTION_KIND_APPROVAL:
        reason = "expired unanswered" if expired else "run ended"
        return ApprovalAnswer(rp.APPROVAL_DECISION_REJECT, rp.APPROVAL_SCOPE_ONCE, reason, source)
    if kind == ip.INTERACTION_KIND_TAKEOVER:
        ending = bc.TAKEOVER_ENDING_EXPIRED if expired else bc.TAKEOVER_ENDING_RUN_ENDED
        return TakeoverAnswer(ending)
    return InputAnswer(False, {}, source)


def resolution_event(
    interaction_id: str, answer: Answer
) -> rp.ApprovalResolved | rp.InputResolved | bc.TakeoverEnded:
    if isinstance(answer, ApprovalAnswer):
        return rp.ApprovalResolved(
            approval_id=interaction_id,
            decision=answer.decision,  # type: ignore[arg-type]
            scope=answer.scope,  # type: ignore[arg-type]
            reason=answer.reason,
            source=answer.source,  # type: ignore[arg-type]
            resolved_by=answer.resolved_by,
        )
    if isinstance(answer, TakeoverAnswer):
        return bc.TakeoverEnded(
            takeover_id=interaction_id,
            ending=answer.ending,  # type: ignore[arg-type]
            resolved_by=answer.resolved_by,
            note=answer.note,
            driver=answer.driver,
            url=answer.url,
            input_events=answer.input_events,
        )
    return rp.InputResolved(
        request_id=interaction_id,
        submitted=answer.submitted,
        refs=sorted(answer.values) if answer.submitted else [],
        source=answer.source,  # type: ignore[arg-type]
        resolved_by=answer.resolved_by,
    )


def refuse_closed(stored: ip.Interaction) -> None:
    """Raises why `stored`, no longer open here, takes no answer."""
    if stored.state == ip.INTERACTION_STATE_PENDING:  # pending, but another replica executes it
        raise ExecutedElsewhere(stored.run.removeprefix("runs/"), stored.name)
    if stored.state == ip.INTERACTION_STATE_RESOLVED:
        raise FailedPrecondition(
            f"{stored.name} was already answered differently", "INTERACTION_ALREADY_RESOLVED"
        )
    if stored.state == ip.INTERACTION_STATE_EXPIRED:
        raise FailedPrecondition(f"{stored.name} expired unanswered", "INTERACTION_EXPIRED")
    raise FailedPrecondition(
        f"{stored.name} was cancelled because its run ended", "INTERACTION_CANCELLED"
    )


def id_of(interaction: ip.Interaction) -> str:
    return interaction.name.removeprefix("interactions/")


def as_error(
    request: ae.InteractiveFormDataRequest, field_errors: dict[str, str]
) -> ae.InteractiveFormDataError:
    return ae.InteractiveFormDataError(
        field_errors=field_errors,
        fields=request.fields,
        form_description=request.form_description,
        iteration_id=request.iteration_id,
        page_title=request.page_title,
        page_url=request.page_url,
        request_id=request.request_id,
        timestamp=request.timestamp,
    )


def kind_label(kind: int) -> str:
    return ip.InteractionKind.Name(kind).removeprefix("INTERACTION_KIND_").lower()


def observe_closed(interaction: ip.Interaction) -> None:
    state = ip.InteractionState.Name(interaction.state).removeprefix("INTERACTION_STATE_").lower()
    waited = interaction.resolve_time.ToMicroseconds() - interaction.create_time.ToMicroseconds()
    metrics.interaction_closed(kind_label(interaction.kind), state, waited / 1e6)
