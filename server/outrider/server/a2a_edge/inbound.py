"""A client's message that starts a task, read into a run: which skill, its text and its data.

Text parts are the task (browse) or the question (research). One data part or more (JSON
objects, merged) carry the rest, by the contract's field names: for browse `url`, `data`,
`guardrails`, `maxIterations`, `trustedHostnames`, `interactive` (true unless given), ...; for
research `mode`, `fetchTimeout`, `nocache`, ...; and for either `options` (model, allowed and
blocked domains, ...). The skill is the message's `metadata.skill` or the data's `skill`; without
one, a browse-only field (such as `url`) means browse, anything else research. Files are not
read (ContentTypeNotSupportedError).
"""

from __future__ import annotations

from typing import Any

from a2a.types import a2a_pb2 as a2a
from a2a.utils.errors import ContentTypeNotSupportedError
from google.protobuf import json_format

from outrider.server.a2a_edge.data_fields import read_fields
from outrider.server.a2a_edge.parts import CONTEXT_LABEL, MESSAGE_LABEL
from outrider.server.core.errors import InvalidArgument
from outrider.server.core.runs.starting import RunSpec
from outrider.v1 import params_pb2, run_pb2

BROWSE, RESEARCH = "browse", "research"
MAX_ID_CHARS = 256
_BROWSE_ONLY = {f.json_name for f in params_pb2.AutomateParams.DESCRIPTOR.fields} - {"task"}
_RESEARCH_ONLY = {f.json_name for f in params_pb2.ResearchParams.DESCRIPTOR.fields} - {"query"}


def read_content(message: a2a.Message) -> tuple[str, dict[str, Any]]:
    """The message's text (its text parts, in order) and its data (the data parts, merged)."""
    texts: list[str] = []
    data: dict[str, Any] = {}
    for index, part in enumerate(message.parts):
        kind = part.WhichOneof("content")
        if kind == "text":
            texts.append(part.text)
        elif kind == "data":
            data.update(_object(part, f"message.parts[{index}].data"))
        else:
            what = part.media_type or "files"
            raise ContentTypeNotSupportedError(
                f"this agent reads text and JSON data parts, not {what}"
            )
    return "\n\n".join(t for t in texts if t.strip()), data


def _object(part: a2a.Part, where: str) -> dict[str, Any]:
    if part.data.WhichOneof("kind") != "struct_value":
        raise InvalidArgument.single(where, "must be a JSON object")
    value = json_format.MessageToDict(part.data)
    assert isinstance(value, dict)
    return value


def check_id(value: str, field: str) -> str:
    """A client-chosen id (message, context): kept as a label, so short printable text."""
    if not value or len(value) > MAX_ID_CHARS or not value.isprintable():
        raise InvalidArgument.single(field, f"must be 1 to {MAX_ID_CHARS} printable characters")
    return value


def run_spec(message: a2a.Message, context_id: str) -> RunSpec:
    """The run `message` asks for, in context `context_id`; InvalidArgument naming every field
    of its data that cannot be read."""
    text, data = read_content(message)
    skill = _skill(message, data)
    options = params_pb2.RunOptions()
    problems = read_fields(options, data.pop("options", {}), "message.data.options")
    labels = {
        CONTEXT_LABEL: check_id(context_id, "message.contextId"),
        MESSAGE_LABEL: check_id(message.message_id, "message.messageId"),
    }
    params: params_pb2.AutomateParams | params_pb2.ResearchParams
    if skill == BROWSE:
        data.setdefault("interactive", True)  # this client can answer what the agent asks
        params, kind = params_pb2.AutomateParams(), run_pb2.RUN_KIND_AUTOMATE
        problems += read_fields(params, _with_text(data, "task", text), "message.data")
    else:
        params, kind = params_pb2.ResearchParams(), run_pb2.RUN_KIND_RESEARCH
        problems += read_fields(params, _with_text(data, "query", text), "message.data")
    if problems:
        raise InvalidArgument(problems)
    return RunSpec(kind, params, options, labels)


def _skill(message: a2a.Message, data: dict[str, Any]) -> str:
    metadata = json_format.MessageToDict(message.metadata)
    named = data.pop("skill", None) or metadata.get("skill")
    if named in (BROWSE, RESEARCH):
        return str(named)
    if named is not None:
        raise InvalidArgument.single("message.metadata.skill", 'must be "browse" or "research"')
    browse, research = _BROWSE_ONLY & data.keys(), _RESEARCH_ONLY & data.keys()
    if browse and research:
        raise InvalidArgument.single(
            "message.data", f"mixes browse fields {sorted(browse)} and research {sorted(research)}"
        )
    return BROWSE if browse else RESEARCH


def _with_text(data: dict[str, Any], field: str, text: str) -> dict[str, Any]:
    if text and field in data:
        raise InvalidArgument.single(
            f"message.data.{field}", "is given as text too: send it in one place"
        )
    if not text and field not in data:
        raise InvalidArgument.single("message.parts", f"need a text part: the {field}")
    return data if field in data else {**data, field: text}
