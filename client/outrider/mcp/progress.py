"""A readable progress message for the events worth telling a person about: one per browser step
(its action and, shortened, why), pages opened, questions asked, each research phase."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from outrider.client.events import event_name, payload
from outrider.client.wording import approval_question, field_name
from outrider.v1 import run_event_pb2

RunEvent = run_event_pb2.RunEvent
_WHY_CHARS = 120
_RESOLUTIONS = {
    run_event_pb2.RESOLUTION_SOURCE_EXPIRED: "expired unanswered",
    run_event_pb2.RESOLUTION_SOURCE_RUN_ENDED: "closed: the run ended",
}


class Narrator:
    """Remembers the step and its reasoning until the step's action arrives."""

    def __init__(self) -> None:
        self.step = 0
        self.reasoning = ""

    def message(self, event: RunEvent) -> str | None:
        inner = payload(event)
        if inner is None:
            return None
        name = event_name(event)
        if event.HasField("research"):
            return _research(name, inner)
        return self._automate(name, inner)

    def _automate(self, name: str, inner: Any) -> str | None:
        if name == "agent:step":
            self.step, self.reasoning = inner.current_iteration, ""
            return None
        if name == "agent:reasoned":
            self.reasoning = " ".join(inner.reasoning.split())
            return None
        if name == "agent:action":
            return self._action(inner)
        return _AUTOMATE.get(name, _nothing)(inner)

    def _action(self, action: Any) -> str:
        value = "" if action.action == "done" else action.value
        what = " ".join(part for part in (action.action, action.ref, value) if part)
        why = self.reasoning
        if len(why) > _WHY_CHARS:
            why = why[: _WHY_CHARS - 1] + "…"
        return f"Step {self.step}: {what}" + (f" ({why})" if why else "")


def _nothing(inner: Any) -> str | None:
    return None


def _host(url: str) -> str:
    return urlsplit(url).hostname or url


def _opened(inner: Any) -> str:
    return f"Opened {inner.title or _host(inner.url)} ({_host(inner.url)})"


def _failed_action(inner: Any) -> str | None:
    return None if inner.success else f"The action failed: {inner.error}"


def _asked_form(inner: Any) -> str:
    labels = ", ".join(field_name(f) for f in inner.fields)
    return f"Waiting for form data: {labels}"


def _asked_approval(inner: Any) -> str:
    return f"Waiting for approval: {approval_question(inner)}"


def _resolved(inner: Any) -> str | None:
    return f"The question {_RESOLUTIONS[inner.source]}" if inner.source in _RESOLUTIONS else None


def _queued(inner: Any) -> str:
    return f"Queued: position {inner.position} in line for a free slot"


def _finished(inner: Any) -> str:
    return "Finished" if inner.success else "Finished without success"


_AUTOMATE = {
    "task:started": lambda inner: f"Plan: {inner.plan}" if inner.plan else None,
    "browser:navigated": _opened,
    "browser:action_completed": _failed_action,
    "agent:status": lambda inner: str(inner.message) or None,
    "task:validated": lambda inner: "Checking the result",
    "interactive:form_data:request": _asked_form,
    "interactive:form_data:error": lambda inner: "The page refused the values; asking again",
    "approval_requested": _asked_approval,
    "approval_resolved": _resolved,
    "input_resolved": _resolved,
    "run_queued": _queued,
    "run_resumed": lambda inner: f"Resumed on another replica: {inner.reason}",
    "complete": _finished,
}


def _research(name: str, inner: Any) -> str | None:
    message = str(getattr(inner, "message", "")).strip()
    if name == "error":
        return f"Research failed: {inner.error.message or message}"
    return message or None
