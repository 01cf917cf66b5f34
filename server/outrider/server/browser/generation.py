"""Our model messages as the seed's ai:generation message union (content redacted)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from google.protobuf import struct_pb2

from outrider.server.models.base import Message
from outrider.v1 import ai_generation_pb2 as ag

Redact = Callable[[str], str]


def to_model_messages(messages: Sequence[Message], redact: Redact) -> list[ag.ModelMessage]:
    return [_convert(message, redact) for message in messages]


def _convert(message: Message, redact: Redact) -> ag.ModelMessage:
    text = redact(message.text)
    if message.role == "system":
        return ag.ModelMessage(system=ag.SystemMessage(content=text))
    if message.role == "user":
        return ag.ModelMessage(user=_user(message, text))
    if message.role == "assistant":
        return ag.ModelMessage(assistant=_assistant(message, text, redact))
    result = ag.ToolResultPart(
        tool_call_id=message.tool_call_id,
        output=ag.ToolResultOutput(text=ag.ToolOutputText(value=text)),
    )
    return ag.ModelMessage(tool=ag.ToolMessage(content=[ag.ToolContentPart(tool_result=result)]))


def _user(message: Message, text: str) -> ag.UserMessage:
    if not message.images:
        return ag.UserMessage(text=text)
    # Image bytes stay out of events (they are screenshot artifacts already); the part says an
    # image was sent and of which type.
    parts = [ag.UserContentPart(text=ag.TextPart(text=text))]
    for image in message.images:
        parts.append(ag.UserContentPart(image=ag.ImagePart(media_type=image.media_type)))
    return ag.UserMessage(parts=ag.UserContentParts(parts=parts))


def _assistant(message: Message, text: str, redact: Redact) -> ag.AssistantMessage:
    if not message.tool_calls:
        return ag.AssistantMessage(text=text)
    parts = [ag.AssistantContentPart(text=ag.TextPart(text=text))] if text else []
    for call in message.tool_calls:
        arguments = struct_pb2.Struct()
        arguments.update(
            {k: redact(v) if isinstance(v, str) else v for k, v in call.arguments.items()}
        )
        part = ag.ToolCallPart(tool_call_id=call.id, tool_name=call.name, input=arguments)
        parts.append(ag.AssistantContentPart(tool_call=part))
    return ag.AssistantMessage(parts=ag.AssistantContentParts(parts=parts))
