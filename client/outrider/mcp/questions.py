"""A run's questions as elicitations, and the client's answers back as the contract's answers.

A form-data request is split: its plain fields are asked in a form (form mode); its secret ones
(passwords, PINs, card security codes, one-time codes, tokens) never go through the MCP client or
its model: the user is sent to the run's one-time answer page instead (URL mode). An approval is
a form: approve once, approve for the rest of the run on that host, or reject with a reason.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Literal

from mcp import types
from outrider.client.events import form_request
from outrider.client.wording import (
    approval_question,
    approve_always_label,
    field_name,
    form_question,
)
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2, run_event_pb2

FormRequest = ae.InteractiveFormDataRequest
ApprovalRequest = run_event_pb2.ApprovalRequested

# Labels of fields whose values are credentials even when the page did not make them passwords.
_SECRET_LABEL = re.compile(
    r"pass(word|phrase|code)|\bpin\b|\bcvv|\bcvc|security code|card (number|code)|"
    r"one[- ]time|\botp\b|\btoken\b|secret|api[ _-]?key|\bssn\b|social security",
    re.IGNORECASE,
)
_TYPES: dict[int, dict[str, Any]] = {
    ae.FORM_FIELD_TYPE_EMAIL: {"type": "string", "format": "email"},
    ae.FORM_FIELD_TYPE_DATE: {"type": "string", "format": "date"},
    ae.FORM_FIELD_TYPE_NUMBER: {"type": "number"},
    ae.FORM_FIELD_TYPE_CHECKBOX: {"type": "boolean"},
}
APPROVE_ONCE, APPROVE_ALWAYS, REJECT = "approve_once", "approve_always", "reject"


@dataclass(frozen=True)
class Question:
    """A pending question of a run: `interaction` is "interactions/<id>"."""

    interaction: str
    form: FormRequest | None = None
    approval: ApprovalRequest | None = None

    @property
    def key(self) -> str:
        return self.interaction.removeprefix("interactions/")


def question_of(event: run_event_pb2.RunEvent) -> Question | None:
    """The question a request event asks (a re-request after the page refused values too)."""
    if event.HasField("approval_requested"):
        request = event.approval_requested
        return Question(f"interactions/{request.approval_id}", approval=request)
    form = form_request(event)
    if form is not None:
        return Question(f"interactions/{form.request_id}", form=form)
    return None


def question_from(interaction: interaction_pb2.Interaction) -> Question:
    """The question a pending interaction asks (when attaching to a run later)."""
    if interaction.HasField("approval"):
        return Question(interaction.name, approval=interaction.approval)
    return Question(interaction.name, form=interaction.form_data)


def resolved_by(event: run_event_pb2.RunEvent) -> str | None:
    """The interaction an `approval_resolved` or `input_resolved` event closes."""
    if event.HasField("approval_resolved"):
        return f"interactions/{event.approval_resolved.approval_id}"
    if event.HasField("input_resolved"):
        return f"interactions/{event.input_resolved.request_id}"
    return None


def is_secret(field: ae.FormField) -> bool:
    if field.field_type == ae.FORM_FIELD_TYPE_PASSWORD:
        return True
    return bool(_SECRET_LABEL.search(f"{field.label} {field.description}"))


def split(form: FormRequest) -> tuple[list[ae.FormField], list[ae.FormField]]:
    """(plain fields, secret fields)."""
    plain = [f for f in form.fields if not is_secret(f)]
    return plain, [f for f in form.fields if is_secret(f)]


# form-data requests


def form_params(form: FormRequest, fields: list[ae.FormField]) -> types.ElicitRequestFormParams:
    message = form_question(form, fields)
    schema = {
        "type": "object",
        "properties": {f.ref: _field_schema(f) for f in fields},
        "required": [f.ref for f in fields if f.required],
    }
    return types.ElicitRequestFormParams(message=message, requested_schema=schema)


def _field_schema(field: ae.FormField) -> dict[str, Any]:
    schema: dict[str, Any] = dict(_TYPES.get(field.field_type, {"type": "string"}))
    if field.options and schema["type"] == "string":
        schema["enum"] = list(field.options)
    schema["title"] = field_name(field)
    if field.description:
        schema["description"] = field.description
    if field.HasField("current_value") and field.current_value:
        schema["default"] = _typed(schema, field.current_value)
    return schema


def _typed(schema: dict[str, Any], value: str) -> Any:
    if schema["type"] == "boolean":
        return value.lower() in ("true", "on", "checked", "yes", "1")
    if schema["type"] == "number":
        try:
            return float(value)
        except ValueError:
            return None
    return value


def form_values(result: types.ElicitResult, asked: Collection[str]) -> dict[str, str]:
    """The accepted form's values of the `asked` field refs, as the page takes them."""
    content = result.content or {}
    values: dict[str, str] = {}
    for ref, value in content.items():
        if ref not in asked or value is None:
            continue
        if isinstance(value, bool):
            values[ref] = "true" if value else "false"
        elif isinstance(value, float) and value.is_integer():
            values[ref] = str(int(value))
        elif isinstance(value, list):
            values[ref] = ", ".join(str(v) for v in value)
        else:
            values[ref] = str(value)
    return values


def url_message(form: FormRequest, fields: list[ae.FormField]) -> str:
    return (
        f"{form_question(form, fields)} Enter it on Outrider's one-time answer page: it goes "
        "from your browser to the agent, never through this assistant."
    )


def url_params(message: str, url: str, elicitation_id: str | None) -> types.ElicitRequestURLParams:
    return types.ElicitRequestURLParams(message=message, url=url, elicitation_id=elicitation_id)


# approvals


def approval_params(request: ApprovalRequest, titled: bool) -> types.ElicitRequestFormParams:
    """`titled`: the client takes enums with titles (oneOf/const, 2025-11-25 and later)."""
    message = f"{approval_question(request)}. Allow it?"
    choices = [
        (APPROVE_ONCE, "Approve once"),
        (APPROVE_ALWAYS, approve_always_label(request)),
        (REJECT, "Reject"),
    ]
    decision: dict[str, Any] = {"type": "string", "title": "Decision"}
    if titled:
        decision["oneOf"] = [{"const": value, "title": title} for value, title in choices]
    else:
        decision["enum"] = [value for value, _ in choices]
        decision["enumNames"] = [title for _, title in choices]
    reason = {"type": "string", "title": "Reason (told to the agent if you reject)"}
    schema = {
        "type": "object",
        "properties": {"decision": decision, "reason": reason | {"maxLength": 1000}},
        "required": ["decision"],
    }
    return types.ElicitRequestFormParams(message=message, requested_schema=schema)


Decision = tuple[bool, bool, str]  # approve, always, reason


def decision_of(result: types.ElicitResult) -> Decision:
    """An accepted form decides; declining or dismissing the question rejects the action."""
    if result.action != "accept":
        return False, False, _refusal(result.action)
    content = result.content or {}
    choice = content.get("decision")
    reason = str(content.get("reason") or "")[:1000]
    if choice == APPROVE_ONCE:
        return True, False, reason
    if choice == APPROVE_ALWAYS:
        return True, True, reason
    return False, False, reason or "rejected in the MCP client"


def _refusal(action: Literal["accept", "decline", "cancel"]) -> str:
    return "declined in the MCP client" if action == "decline" else "dismissed in the MCP client"
