"""A client's message on an input-required task, read as the answer to the question it waits on.

A form-data request takes a data part `{"values": {"<ref>": "<value>", ...}}` (strings; true,
false and numbers are written as text) or `{"decline": true}`; a form with a single field also
takes a plain text part as its value. A form with a secret field takes only a decline here: it
is answered through its one-time answer link. An approval takes `{"decision": "approve" |
"approve_always" | "reject", "reason": "..."}`, or that word alone as text. Either may name the
question (`"interactionId"`); a different one is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from a2a.types import a2a_pb2 as a2a

from outrider.server.a2a_edge.inbound import read_content
from outrider.server.a2a_edge.questions import CHOICES, is_secret
from outrider.server.core.errors import FailedPrecondition, InvalidArgument
from outrider.v1 import interaction_pb2 as ip


@dataclass(frozen=True)
class FormReply:
    values: list[tuple[str, str]]
    declined: bool


@dataclass(frozen=True)
class ApprovalReply:
    decision: int
    scope: int
    reason: str


def read_reply(message: a2a.Message, interaction: ip.Interaction) -> FormReply | ApprovalReply:
    text, data = read_content(message)
    interaction_id = interaction.name.removeprefix("interactions/")
    named = data.pop("interactionId", interaction_id)
    if named != interaction_id:
        raise FailedPrecondition(
            f"the task waits on interaction {interaction_id}, not {named}",
            reason="INTERACTION_NOT_PENDING",
        )
    if interaction.kind == ip.INTERACTION_KIND_APPROVAL:
        return _approval(text, data)
    return _form(text, data, interaction)


def _approval(text: str, data: dict[str, Any]) -> ApprovalReply:
    choice = data.get("decision", text.strip().lower() if not data else None)
    if choice not in CHOICES:
        raise InvalidArgument.single(
            "message.data.decision", f"must be one of {', '.join(CHOICES)}"
        )
    reason = data.get("reason", "")
    if not isinstance(reason, str):
        raise InvalidArgument.single("message.data.reason", "must be text")
    decision, scope = CHOICES[choice]
    return ApprovalReply(decision, scope, reason)


def _form(text: str, data: dict[str, Any], interaction: ip.Interaction) -> FormReply:
    fields = interaction.form_data.fields
    if data.get("decline") is True:
        return FormReply([], declined=True)
    secret = [f.label or f.ref for f in fields if is_secret(f)]
    if secret:
        raise FailedPrecondition(
            f"this form has a secret field ({', '.join(secret)}), which is never answered "
            'here: answer the form through its answer link, or send {"decline": true}',
            reason="SECRET_FIELD",
        )
    if "values" in data:
        return FormReply(_values(data["values"]), declined=False)
    if text and not data and len(fields) == 1:
        return FormReply([(fields[0].ref, text)], declined=False)
    raise InvalidArgument.single(
        "message.parts", 'need a data part {"values": {"<ref>": "<value>"}} or {"decline": true}'
    )


def _values(given: object) -> list[tuple[str, str]]:
    if not isinstance(given, dict):
        raise InvalidArgument.single("message.data.values", "must be an object of ref: value")
    values: list[tuple[str, str]] = []
    for ref, value in given.items():
        if isinstance(value, bool):
            values.append((ref, "true" if value else "false"))
        elif isinstance(value, int | float):  # JSON numbers arrive as floats
            whole = isinstance(value, float) and value.is_integer()
            values.append((ref, str(int(value)) if whole else str(value)))
        elif isinstance(value, str):
            values.append((ref, value))
        else:
            raise InvalidArgument.single(f"message.data.values.{ref}", "must be text")
    return values
