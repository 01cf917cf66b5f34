"""A run resumed after its replica was lost asks its questions again, under new ids: which of the
lost attempt's questions a new one asks again (the same question, ids and times aside), so an
answer to the old one can be told where the question went, an approval given before the loss
carries over, and a form asked again says why it is."""

from __future__ import annotations

from outrider.server.core.interactions.entries import Request
from outrider.server.core.storage import Store
from outrider.server.core.storage.contract import AnswerRecord
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_event_pb2 as rp


def earlier_asking(
    store: Store, run_id: str, kind: int, request: Request
) -> tuple[ip.Interaction, AnswerRecord] | None:
    """The oldest question of the run's lost attempts that `request` asks again, if any."""
    wanted = _question(request)
    for earlier, record in store.lost_interactions(run_id):
        if earlier.kind == kind and _question(_request_of(earlier)) == wanted:
            return earlier, record
    return None


def carried_over(earlier: ip.Interaction) -> bool:
    """A caller decided the earlier approval: the same approval asked again takes its decision."""
    return (
        earlier.kind == ip.INTERACTION_KIND_APPROVAL
        and earlier.state == ip.INTERACTION_STATE_RESOLVED
        and bool(earlier.resolved_by)
    )


def carry_over_reason(earlier: ip.Interaction) -> str:
    return (
        f"decided on {earlier.name} before the replica executing the run was lost; the resumed "
        "run asked the same again"
    )


def asked_again_note(earlier: ip.Interaction) -> str:
    """Leads the description of a form the resumed run asks again."""
    answered = "was answered" if earlier.state == ip.INTERACTION_STATE_RESOLVED else "was asked"
    return (
        f"Asked again: {earlier.name} {answered} before the replica executing this run was lost, "
        "and the run restarted. Form values are never stored, so they are asked for again."
    )


def _request_of(interaction: ip.Interaction) -> Request | None:
    if interaction.HasField("approval"):
        return interaction.approval
    if interaction.HasField("form_data"):
        return interaction.form_data
    return None  # a takeover: never asked again this way


def _question(request: Request | None) -> bytes:
    """What makes two requests the same question: what they ask, not their ids and times (nor
    a form's description, which the note above changes, nor its fields' current values)."""
    if isinstance(request, rp.ApprovalRequested):
        same = rp.ApprovalRequested(
            action=request.action, ref=request.ref, url=request.url, reason=request.reason
        )
        same.details.CopyFrom(request.details)
        return b"approval" + same.SerializeToString(deterministic=True)
    if isinstance(request, ae.InteractiveFormDataRequest):
        same_form = ae.InteractiveFormDataRequest(page_url=request.page_url)
        for field in request.fields:
            same_form.fields.add(
                field_type=field.field_type,
                label=field.label,
                required=field.required,
                options=field.options,
            )
        return b"form" + same_form.SerializeToString(deterministic=True)
    return b""
