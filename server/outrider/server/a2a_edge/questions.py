"""A run's question as the `input-required` message of its task: a text part for people and a
data part describing what to send back (docs/a2a.md, "Answering").

A form-data request lists its fields (ref, label, type, required, options, description, the
page's error on a re-request). A secret field (a password) is never asked here: it is marked
`secret`, and the message carries the one-time answer link of the console, through which the
whole form is answered, so the secret never passes through the A2A client. An approval lists its
three choices.
"""

from __future__ import annotations

from typing import Any

from a2a.types import a2a_pb2 as a2a
from google.protobuf import json_format

from outrider.client.wording import approval_question, approve_always_label, form_question
from outrider.server.a2a_edge.parts import data_part, text_part
from outrider.server.core.events.names import wire_literals
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2 as rp

FORM_TYPE = "outrider.form_data_request"
APPROVAL_TYPE = "outrider.approval_request"
APPROVE, APPROVE_ALWAYS, REJECT = "approve", "approve_always", "reject"
CHOICES = {
    APPROVE: (rp.APPROVAL_DECISION_APPROVE, rp.APPROVAL_SCOPE_ONCE),
    APPROVE_ALWAYS: (rp.APPROVAL_DECISION_APPROVE, rp.APPROVAL_SCOPE_ALWAYS),
    REJECT: (rp.APPROVAL_DECISION_REJECT, rp.APPROVAL_SCOPE_ONCE),
}
_FIELD_TYPES = wire_literals(ae.FormFieldType.DESCRIPTOR)

FormRequest = ae.InteractiveFormDataRequest | ae.InteractiveFormDataError


def is_secret(spec: ae.FormField) -> bool:
    return spec.field_type == ae.FORM_FIELD_TYPE_PASSWORD


def form_parts(request: FormRequest, answer_url: str | None) -> list[a2a.Part]:
    """The parts of a form-data request's message; `answer_url` when the form has a secret field
    and the caller may be given the link."""
    errors = dict(request.field_errors) if isinstance(request, ae.InteractiveFormDataError) else {}
    fields = [_field(spec, errors.get(spec.ref, "")) for spec in request.fields]
    secret = any(is_secret(spec) for spec in request.fields)
    data: dict[str, Any] = {
        "type": FORM_TYPE,
        "interactionId": request.request_id,
        "description": request.form_description,
        "page": {"url": request.page_url, "title": request.page_title},
        "fields": fields,
    }
    if secret and answer_url:
        data["answerUrl"] = answer_url
    elif not secret:
        data["reply"] = {"values": {f["ref"]: "…" for f in fields}}
    return [text_part(_form_text(request, fields, secret, answer_url)), data_part(data)]


def _field(spec: ae.FormField, error: str) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "ref": spec.ref,
        "label": spec.label or spec.ref,
        "type": _FIELD_TYPES.get(spec.field_type) or "text",
        "required": spec.required,
    }
    if spec.description:
        shown["description"] = spec.description
    if spec.options:
        shown["options"] = list(spec.options)
    if spec.HasField("current_value") and not is_secret(spec):
        shown["currentValue"] = spec.current_value
    if is_secret(spec):
        shown["secret"] = True
    if error:
        shown["error"] = error
    return shown


def _form_text(
    request: FormRequest, fields: list[dict[str, Any]], secret: bool, answer_url: str | None
) -> str:
    retry = " The page refused the last answer." if any("error" in f for f in fields) else ""
    head = f"{form_question(request)}{retry}"
    if not secret:
        return head + ' Reply on this task with a data part {"values": {"<ref>": "<value>"}}.'
    if answer_url:
        return (
            f"{head} The form has a secret field, which is never asked here: open {answer_url} "
            "to answer the whole form (the link works once)."
        )
    return (
        f"{head} The form has a secret field, which is never asked here, and you may not be "
        "given its answer link: someone allowed to answer must answer it, or decline it here."
    )


def approval_parts(request: rp.ApprovalRequested) -> list[a2a.Part]:
    data: dict[str, Any] = {
        "type": APPROVAL_TYPE,
        "interactionId": request.approval_id,
        "action": request.action,
        "element": request.ref,
        "url": request.url,
        "reason": request.reason,
        "question": approval_question(request),
        "details": json_format.MessageToDict(request.details),
        "choices": [
            {"decision": APPROVE, "label": "Approve once"},
            {"decision": APPROVE_ALWAYS, "label": approve_always_label(request)},
            {"decision": REJECT, "label": "Reject", "reason": "optional, told to the agent"},
        ],
    }
    text = (
        f"{approval_question(request)}. Reply on this task with a data part "
        f'{{"decision": "{APPROVE}"}}, "{APPROVE_ALWAYS}" or "{REJECT}" (with an optional '
        '"reason").'
    )
    return [text_part(text), data_part(data)]
