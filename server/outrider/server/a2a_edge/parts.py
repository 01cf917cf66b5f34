"""A2A parts and messages as this edge writes them, and the ids it derives from runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from a2a.types import a2a_pb2 as a2a
from google.protobuf import json_format, struct_pb2

from outrider.v1 import run_pb2

CONTEXT_LABEL = "a2a.context_id"
MESSAGE_LABEL = "a2a.message_id"
JSON = "application/json"


@dataclass(frozen=True)
class TaskRef:
    """The task a message or update belongs to: a run's id, and its context (the A2A context
    the run was started in, or the run's own id for a run started over gRPC or REST)."""

    task_id: str
    context_id: str

    @classmethod
    def of(cls, run: run_pb2.Run) -> TaskRef:
        run_id = run.name.removeprefix("runs/")
        return cls(run_id, run.labels.get(CONTEXT_LABEL) or run_id)


def text_part(text: str, media_type: str = "text/plain") -> a2a.Part:
    return a2a.Part(text=text, media_type=media_type)


def data_part(data: Mapping[str, Any]) -> a2a.Part:
    value = json_format.ParseDict(dict(data), struct_pb2.Value())
    return a2a.Part(data=value, media_type=JSON)


def agent_message(ref: TaskRef, message_id: str, parts: list[a2a.Part]) -> a2a.Message:
    return a2a.Message(
        message_id=message_id,
        task_id=ref.task_id,
        context_id=ref.context_id,
        role=a2a.ROLE_AGENT,
        parts=parts,
    )


def event_message_id(ref: TaskRef, sequence: int) -> str:
    """The id of the message an event becomes: the same in every stream and in the history."""
    return f"{ref.task_id}-{sequence}"
