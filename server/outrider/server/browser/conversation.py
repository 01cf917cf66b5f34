"""The actor model's conversation: system rules, the task, then turns; only the newest page
snapshot is kept. An older page is taken out, not replaced by a placeholder: every request
would carry one placeholder per earlier step (12 tokens each, 120 over a five-step task) to
say what the turns around it already show.

Tool results and notes quote the page at times (an element's text, a form's error message, an
extracted answer, a tab's title): the fence's marker word is defused in them, so no quoted page
text can open or close a fence there."""

from __future__ import annotations

from outrider.server.models.base import (
    ImagePart,
    Message,
    ModelReply,
    ModelRequest,
    ToolCall,
    ToolSpec,
)
from outrider.server.security.fences import defuse


class Conversation:
    def __init__(self, system: str, task: str) -> None:
        self.messages: list[Message] = [Message("system", system), Message("user", task)]
        self._page_index: int | None = None

    def add_page(self, text: str, images: tuple[ImagePart, ...] = ()) -> None:
        if self._page_index is not None:
            del self.messages[self._page_index]
        self._page_index = len(self.messages)
        self.messages.append(Message("user", text, images=images))

    def add_reply(self, reply: ModelReply) -> None:
        self.messages.append(Message("assistant", reply.text, tool_calls=reply.tool_calls))

    def add_result(self, call: ToolCall, text: str) -> None:
        self.messages.append(Message("tool", defuse(text), tool_call_id=call.id))

    def add_note(self, text: str) -> None:
        self.messages.append(Message("user", defuse(text)))

    def request(self, tools: tuple[ToolSpec, ...], role: str = "actor") -> ModelRequest:
        return ModelRequest(messages=tuple(self.messages), tools=tools, role=role)
