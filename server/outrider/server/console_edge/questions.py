"""A question as the console shows it: a form-data request as a form, an approval as its three
choices, or what became of it. Built from the interaction (its state) and, when known, the
page's field errors of a re-request."""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.timestamp_pb2 import Timestamp

from outrider.client.wording import (
    approval_question,
    approve_always_label,
    field_name,
    form_question,
)
from outrider.server.console_edge.forms import Form
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_event_pb2 as rp

FIELD_PREFIX = "field:"
_INPUT_TYPES = {
    ae.FORM_FIELD_TYPE_EMAIL: "email",
    ae.FORM_FIELD_TYPE_PHONE: "tel",
    ae.FORM_FIELD_TYPE_DATE: "date",
    ae.FORM_FIELD_TYPE_NUMBER: "number",
    ae.FORM_FIELD_TYPE_SELECT: "select",
    ae.FORM_FIELD_TYPE_CHECKBOX: "checkbox",
    ae.FORM_FIELD_TYPE_RADIO: "radio",
    ae.FORM_FIELD_TYPE_TEXTAREA: "textarea",
    ae.FORM_FIELD_TYPE_PASSWORD: "password",
}
_TRUE = "true"
DECISIONS = {
    "approve-once": (rp.APPROVAL_DECISION_APPROVE, rp.APPROVAL_SCOPE_ONCE),
    "approve-always": (rp.APPROVAL_DECISION_APPROVE, rp.APPROVAL_SCOPE_ALWAYS),
    "reject": (rp.APPROVAL_DECISION_REJECT, rp.APPROVAL_SCOPE_ONCE),
}


@dataclass(frozen=True)
class FieldView:
    ref: str
    label: str
    input_type: str  # an <input> type, or "select", "radio", "textarea"
    required: bool
    note: str  # the field's description, or the page's error for it
    is_error: bool
    options: tuple[str, ...]
    value: str  # what to show in it: never anything for a password

    @property
    def name(self) -> str:
        return FIELD_PREFIX + self.ref

    @property
    def dom_id(self) -> str:
        return "f-" + "".join(c if c.isalnum() else "-" for c in self.ref)


@dataclass(frozen=True)
class QuestionView:
    id: str
    kind: str  # "form" or "approval"
    state: str  # "pending", "resolved", "expired", "cancelled"
    outcome: str  # what became of it, for people
    expire_time: Timestamp
    page_title: str
    page_url: str
    question: str  # in a person's words (wording.py): what is asked, on which site
    fields: tuple[FieldView, ...] = ()
    always_label: str = ""  # an approval's "for the rest of the run" choice
    problems: tuple[str, ...] = ()  # why the last submission was refused

    @property
    def pending(self) -> bool:
        return self.state == "pending"

    @property
    def dom_id(self) -> str:
        return "q-" + self.id


def question_view(
    interaction: ip.Interaction,
    errors: dict[str, str] | None = None,
    typed: dict[str, str] | None = None,
    problems: tuple[str, ...] = (),
    given: frozenset[str] = frozenset(),
) -> QuestionView:
    """`errors` are the page's messages per field ref (a re-request); `typed` the values of a
    refused submission to show again (passwords never are); `given` the fields already answered
    elsewhere (an MCP client's form), which are not asked again."""
    state = _STATES.get(interaction.state, "cancelled")
    base = {
        "id": interaction.name.removeprefix("interactions/"),
        "state": state,
        "outcome": _outcome(interaction),
        "expire_time": interaction.expire_time,
        "problems": problems,
    }
    if interaction.kind == ip.INTERACTION_KIND_APPROVAL:
        request = interaction.approval
        return QuestionView(
            kind="approval",
            page_title="",
            page_url=request.url,
            question=approval_question(request),
            always_label=approve_always_label(request),
            **base,  # type: ignore[arg-type]
        )
    form = interaction.form_data
    asked = [f for f in form.fields if f.ref not in given]
    return QuestionView(
        kind="form",
        page_title=form.page_title,
        page_url=form.page_url,
        question=form_question(form, asked),
        fields=tuple(_field(f, errors or {}, typed or {}) for f in asked),
        **base,  # type: ignore[arg-type]
    )


def _field(spec: ae.FormField, errors: dict[str, str], typed: dict[str, str]) -> FieldView:
    input_type = _INPUT_TYPES.get(spec.field_type, "text")
    secret = input_type == "password"
    error = errors.get(spec.ref, "")
    value = "" if secret else typed.get(spec.ref, spec.current_value)
    return FieldView(
        ref=spec.ref,
        label=field_name(spec),
        input_type=input_type,
        required=spec.required,
        note=error or spec.description,
        is_error=bool(error),
        options=tuple(spec.options),
        value=value,
    )


def form_values(interaction: ip.Interaction, form: Form) -> list[tuple[str, str]]:
    """The answer a submitted form gives: one value per field of the request; a checkbox is
    "true" or "false", an optional field left empty is not sent (the page keeps what it has)."""
    sent = dict(form.with_prefix(FIELD_PREFIX))
    values: list[tuple[str, str]] = []
    for spec in interaction.form_data.fields:
        if spec.field_type == ae.FORM_FIELD_TYPE_CHECKBOX:
            values.append((spec.ref, _TRUE if spec.ref in sent else "false"))
        elif sent.get(spec.ref) or spec.required:
            values.append((spec.ref, sent.get(spec.ref, "")))
    return values


def shown_again(values: list[tuple[str, str]], interaction: ip.Interaction) -> dict[str, str]:
    """What a refused submission may show again: everything but passwords."""
    secret = {
        f.ref for f in interaction.form_data.fields if f.field_type == ae.FORM_FIELD_TYPE_PASSWORD
    }
    return {ref: value for ref, value in values if ref not in secret}


_STATES = {
    ip.INTERACTION_STATE_PENDING: "pending",
    ip.INTERACTION_STATE_RESOLVED: "resolved",
    ip.INTERACTION_STATE_EXPIRED: "expired",
    ip.INTERACTION_STATE_CANCELLED: "cancelled",
}


def _outcome(interaction: ip.Interaction) -> str:
    by = f" by {interaction.resolved_by}" if interaction.resolved_by else ""
    if interaction.state == ip.INTERACTION_STATE_PENDING:
        return "Waiting for an answer"
    if interaction.state == ip.INTERACTION_STATE_EXPIRED:
        return "Expired unanswered"
    if interaction.state == ip.INTERACTION_STATE_CANCELLED:
        return "Closed unanswered: the run ended"
    if interaction.kind == ip.INTERACTION_KIND_APPROVAL:
        if interaction.decision == rp.APPROVAL_DECISION_APPROVE:
            return f"Approved{by}"
        return f"Rejected{by}"
    return f"Declined{by}" if interaction.declined else f"Answered{by}"
