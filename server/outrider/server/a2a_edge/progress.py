"""What a person reads of a working run: one short line per event worth telling (a page opened,
a step's reasoning, an action, a research phase), None for the rest (model calls, metrics,
debug, processing ticks), which stay in Outrider's own event streams."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2

MAX_LINE_CHARS = 600


def progress_line(event: run_event_pb2.RunEvent) -> str | None:
    """The line `event` is told as, or None."""
    arm = event.WhichOneof("payload")
    if arm == "automate":
        inner = event.automate.WhichOneof("event")
        telling = _AUTOMATE.get(inner or "")
        line = telling(getattr(event.automate, inner)) if telling and inner else None
    elif arm == "research":
        inner = event.research.WhichOneof("event")
        line = _research_line(getattr(event.research, inner)) if inner else None
    else:
        telling = _OURS.get(arm or "")
        line = telling(getattr(event, arm)) if telling and arm else None
    return _short(line) if line else None


def _short(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"


def _research_line(payload: Message) -> str | None:
    """Research phases carry their own message; the ending (complete, error) is told apart."""
    if payload.DESCRIPTOR.name in ("ResearchComplete", "ResearchError"):
        return None
    message = getattr(payload, "message", "")
    return message if isinstance(message, str) and message else None


def _action(action: ae.AgentAction) -> str:
    target = f" {action.ref}" if action.HasField("ref") else ""
    return f"Action: {action.action}{target}"


def _navigated(navigated: ae.BrowserNavigated) -> str:
    title = navigated.title or "a page"
    return f"Opened {title} ({navigated.url})" if navigated.url else f"Opened {title}"


_AUTOMATE: dict[str, Callable[[Any], str | None]] = {
    "task_setup": lambda m: "Starting the browser",
    "task_started": lambda m: f"Plan: {m.plan}" if m.plan else "Started",
    "browser_navigated": _navigated,
    "agent_status": lambda m: m.message or None,
    "agent_reasoned": lambda m: m.reasoning or None,
    "agent_action": _action,
    "agent_waiting": lambda m: f"Waiting {m.seconds:g} s for the page",
    "task_validated": lambda m: f"Checked the answer: {m.observation}",
    "task_aborted": lambda m: f"Stopping: {m.reason}",
    "browser_reconnected": lambda m: "The browser was restarted; going on",
    "error": lambda m: f"Error: {m.error.message}",
}

_OURS: dict[str, Callable[[Any], str | None]] = {
    "run_queued": lambda m: f"Queued: number {m.position} in line for a slot",
    "run_resumed": lambda m: f"Resumed: {m.reason}",
    "recipe_replayed": lambda m: f"Replayed {m.steps_replayed} of {m.steps_total} recorded steps",
}
