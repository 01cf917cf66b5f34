"""The actor model's conversation: system rules, the run's own rules, the task (with its plan),
then turns; only the newest page snapshot is kept. An older page is taken out, not replaced by a
placeholder: every request would carry one placeholder per earlier step (12 tokens each, 120
over a five-step task) to say what the turns around it already show.

Every request starts with the same bytes as the one before, up to that one's page: the rules
every run shares, the run's rules and task, then the turns in order. Requests mark where those
prefixes end (ModelRequest.cache_points), so providers serve them from their prompt caches.

Tool results and notes quote the page at times (an element's text, a form's error message, an
extracted answer, a tab's title): the fence's marker word is defused in them, so no quoted page
text can open or close a fence there."""

from __future__ import annotations

from typing import Any

from outrider.server.browser.prompts import task_message
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
    def __init__(self, rules: str, run_rules: str, task: str, url: str, session: str = "") -> None:
        """`session`: what a run in a session is told of the earlier runs (before its task)."""
        self.messages: list[Message] = [Message("system", rules)]
        if run_rules:
            self.messages.append(Message("system", run_rules))
        if session:
            self.messages.append(Message("user", session))
        self._task_index = len(self.messages)
        self._task, self._url = task, url
        self.messages.append(Message("user", task_message(task, url)))
        self._page_index: int | None = None

    def set_plan(self, plan: dict[str, Any]) -> None:
        """Adds the plan to the task message; before the first turn, so every turn's request
        carries the same task message."""
        text = task_message(self._task, self._url, plan)
        self.messages[self._task_index] = Message("user", text)

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

    def request(
        self, tools: tuple[ToolSpec, ...], role: str = "actor", one_tool_call: bool = False
    ) -> ModelRequest:
        return ModelRequest(
            messages=tuple(self.messages),
            tools=tools,
            role=role,
            cache_points=self._cache_points(),
            one_tool_call=one_tool_call,
        )

    def _cache_points(self) -> tuple[int, ...]:
        """The shared rules, the task, and the last message before the newest page (the next
        request repeats everything up to there)."""
        last = len(self.messages) - 1
        history = last - 1 if self._page_index == last else last
        points = {0, self._task_index}
        if history > self._task_index:
            points.add(history)
        return tuple(sorted(points))
