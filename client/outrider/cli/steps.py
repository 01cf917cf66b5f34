"""The default terminal view: one line per agent step (what it did, and why, in a few words),
plus the lines a person needs besides: the task, warnings, failed actions and the questions'
outcomes. `--verbose` shows every event's line instead (render.py)."""

from __future__ import annotations

from typing import Any

from outrider.client import event_name, payload
from outrider.v1 import run_event_pb2

RunEvent = run_event_pb2.RunEvent
_SOURCES = {
    run_event_pb2.RESOLUTION_SOURCE_EXPIRED: "expired unanswered",
    run_event_pb2.RESOLUTION_SOURCE_RUN_ENDED: "closed: the run ended",
}


class StepLines:
    """Remembers the step number and reasoning until the step's action arrives."""

    def __init__(self, width: int) -> None:
        self.width = max(width, 40)
        self.step = 0
        self.reasoning = ""
        self.held: dict[str, tuple[str, str]] = {}  # approval id -> (iteration id, action)
        self.refused: set[str] = set()  # iterations whose held action a person rejected

    def line(self, event: RunEvent) -> str | None:
        name, inner = event_name(event), payload(event)
        if inner is None:
            return None
        if event.HasField("research"):
            message = str(getattr(inner, "message", ""))
            return f"[cyan]{name}[/] {message}".rstrip() if message else None
        return self._automate(name, inner)

    def _automate(self, name: str, inner: Any) -> str | None:
        if name == "task:setup":
            return f"[bold]task[/] {inner.task}{_model(inner.provider, inner.model)}"
        if name == "agent:step":
            self.step, self.reasoning = inner.current_iteration, ""
        elif name == "agent:reasoned":
            self.reasoning = " ".join(inner.reasoning.split())
        elif name == "agent:action":
            return self._action(inner)
        elif name == "agent:status":
            return f"  [yellow]![/] {inner.message}"
        elif name == "browser:action_completed" and not inner.success:
            if inner.iteration_id in self.refused:
                return None  # not a failure: the rejection's own line said it
            return f"  [red]✗ the action failed:[/] {inner.error}"
        elif name == "approval_requested":
            what = " ".join(part for part in (inner.action, inner.ref) if part)
            self.held[inner.approval_id] = (inner.iteration_id, what)
        elif name == "approval_resolved" and inner.source == run_event_pb2.RESOLUTION_SOURCE_CALLER:
            return self._decision(inner)
        elif name in ("approval_resolved", "input_resolved") and inner.source in _SOURCES:
            return f"  [yellow]the question {_SOURCES[inner.source]}[/]"
        return None

    def _decision(self, resolved: run_event_pb2.ApprovalResolved) -> str:
        iteration, what = self.held.get(resolved.approval_id, ("", "the action"))
        if resolved.decision == run_event_pb2.APPROVAL_DECISION_APPROVE:
            always = resolved.scope == run_event_pb2.APPROVAL_SCOPE_ALWAYS
            return (
                f"  [green]✓ approved:[/] {what}{' (and the like, for this run)' if always else ''}"
            )
        self.refused.add(iteration)
        because = f": {resolved.reason}" if resolved.reason else ""
        who = resolved.resolved_by
        by = f" by {who}" if who and who != "anonymous" else ""  # anonymous: no keys, this person
        return f"  [yellow]⊘ rejected{by}:[/] {what}{because}"

    def _action(self, action: Any) -> str:
        # done's value is the answer, which the outcome line shows next
        value = "" if action.action == "done" else action.value
        what = " ".join(part for part in (action.action, action.ref, value) if part)
        head = f"step {self.step:>2}  {what}"
        why = self.reasoning
        room = self.width - len(head) - 12
        if why and room > 10:
            why = why if len(why) <= room else why[: room - 1] + "…"
            return f"[bold cyan]step {self.step:>2}[/]  [yellow]{what}[/]  [dim]· {why}[/]"
        return f"[bold cyan]step {self.step:>2}[/]  [yellow]{what}[/]"


def _model(provider: str, model: str) -> str:
    if not model:
        return ""
    if provider == "scripted":  # a scenario file's path says little; its name is enough
        return f" [dim](scripted model {model.rsplit('/', 1)[-1]})[/]"
    return f" [dim]({provider}:{model})[/]"
