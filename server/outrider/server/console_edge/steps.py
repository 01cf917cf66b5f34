"""A run's events by step: a browser run's loop iterations (its events name their iteration), a
research run's phases (each begins with a phase's start event); what comes before the first
step is "Getting ready". Each step's time, tokens and estimated cost come from what the run
recorded (its model calls' ai:generation events), its actions with the element each targeted,
its words (the agent's reasoning, else the step's first message), and the screenshot it looked
at: the steps table, the timeline's headings and the replay are all read from here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from outrider.server.console_edge import event_words
from outrider.server.console_edge.timeline import payload_dict
from outrider.server.core.events.names import event_name
from outrider.v1 import run_event_pb2

READY = ("ready", "Getting ready")
_ITERATION_TITLES = {"setup": READY, "connect": READY, "plan": ("plan", "Planning")}
_PHASES = {
    "prefetching": "Opening the pages it was given",
    "planning": "Planning the research",
    "searching": "Searching",
    "analyzing": "Reading pages",
    "following": "Following links",
    "evaluating": "Judging what it found",
    "outlining": "Outlining the report",
    "writing": "Writing the report",
    "judging": "Checking the report",
}
_SCREENSHOTS = ("browser:screenshot_captured", "browser:screenshot_captured_image")
Step = tuple[str, str]  # (key, title)


def step_of(event: run_event_pb2.RunEvent, name: str, previous: Step) -> Step:
    """The step `event` belongs to, given the step of the event before it."""
    if event.WhichOneof("payload") == "automate":
        iteration = _iteration(event)
        if iteration.startswith("step-") and iteration[5:].isdigit():
            return iteration, f"Step {iteration[5:]}"
        if iteration in _ITERATION_TITLES:
            return _ITERATION_TITLES[iteration]
        return previous
    phase, _, edge = name.partition(":")
    if edge == "start" and phase in _PHASES:
        return f"{phase}-{event.sequence}", _PHASES[phase]
    if name == "run_queued" and previous == READY:
        return "queue", "Waiting in line"
    if name == "run_resumed":
        return f"resumed-{event.sequence}", "Taken over by another server"
    return previous


def _iteration(event: run_event_pb2.RunEvent) -> str:
    inner = event.automate.WhichOneof("event")
    payload = getattr(event.automate, inner) if inner else None
    return str(getattr(payload, "iteration_id", "")) if payload is not None else ""


@dataclass
class Action:
    words: str
    target: dict[str, float]  # x, y, width, height in viewport pixels; empty when unknown


@dataclass
class StepView:
    key: str
    title: str
    number: int  # 1, 2, ... in the run's order
    start: Timestamp
    end: Timestamp
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    actions: list[Action] = field(default_factory=list)
    words: str = ""
    screenshot: str = ""  # artifact id of the screenshot the step looked at
    url: str = ""  # of the page its screenshot shows

    @property
    def seconds(self) -> float:
        return max(self.end.ToMicroseconds() - self.start.ToMicroseconds(), 0) / 1_000_000

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class StepsBuilder:
    """Builds the steps event by event (the live stream feeds it as it sends them)."""

    def __init__(self) -> None:
        self.steps: list[StepView] = []
        self._current: Step = READY
        self._page = ""  # the URL of the page the browser shows, as far as events say

    def feed(self, event: run_event_pb2.RunEvent, name: str, data: dict[str, Any]) -> bool:
        """Adds an event; True when it began a new step."""
        self._current = step_of(event, name, self._current)
        began = not self.steps or self.steps[-1].key != self._current[0]
        if began:
            before = self.steps[-1] if self.steps else None
            key, title = self._current
            step = StepView(key, title, len(self.steps) + 1, event.time, event.time)
            if before is not None:  # the page it looked at, until it takes its own
                step.screenshot, step.url = before.screenshot, before.url
            self.steps.append(step)
        step = self.steps[-1]
        step.end = event.time
        if name == "browser:navigated":
            self._page = str(data.get("url", ""))
        elif name in _SCREENSHOTS and event.artifact:
            step.screenshot = event.artifact.rsplit("/", 1)[-1]
            step.url = self._page  # the page the screenshot shows
        _add(step, name, data)
        return began

    @property
    def current(self) -> StepView | None:
        return self.steps[-1] if self.steps else None


def steps_of(events: list[run_event_pb2.RunEvent]) -> list[StepView]:
    """The run's steps in order, from its events (all of them, from the first)."""
    builder = StepsBuilder()
    for event in events:
        builder.feed(event, event_name(event), payload_dict(event))
    return builder.steps


def _add(step: StepView, name: str, data: dict[str, Any]) -> None:
    if name == "ai:generation":
        usage = data.get("usage", {})
        step.input_tokens += int(usage.get("input_tokens", 0))
        step.output_tokens += int(usage.get("output_tokens", 0))
        cost = data.get("provider_metadata", {}).get("outrider", {}).get("estimated_cost_usd")
        if cost is not None:
            step.cost = (step.cost or 0.0) + float(cost)
    elif name == "agent:action":
        step.actions.append(Action(event_words.label(name, data), _box(data.get("target"))))
    if not step.words and name in ("agent:reasoned", "agent:status", "task:started"):
        step.words = event_words.label(name, data)
    elif not step.words and name.endswith(":start") and data.get("message"):
        step.words = str(data["message"])


def _box(target: Any) -> dict[str, float]:
    if not isinstance(target, dict) or "width" not in target:
        return {}
    return {k: float(target.get(k, 0.0)) for k in ("x", "y", "width", "height")}
