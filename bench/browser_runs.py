"""Scripted browser runs for the benchmarks: scenario files, an Automate call that keeps every
event's name and server-side timestamp, and the per-step timings read from those timestamps."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import yaml

from outrider.server.core.events.names import event_name
from outrider.v1 import params_pb2, run_service_pb2, run_service_pb2_grpc

Action = dict[str, Any]  # a tool call: {"name": ..., "arguments": {...}}

PLAN = {
    "plan": "Look at the page step by step.",
    "success_criteria": "Every step was taken.",
    "action_items": ["look", "act", "answer"],
}
VERDICT = {"completion_quality": "complete", "observation": "All steps were taken."}


def scrolls(count: int) -> list[Action]:
    """`count` page scrolls, alternately down and up (never identical twice in a row)."""
    directions = ("down", "up")
    return [{"name": "scroll", "arguments": {"direction": directions[i % 2]}} for i in range(count)]


def wait(seconds: float) -> list[Action]:
    return [{"name": "wait", "arguments": {"seconds": seconds}}]


def scenario(
    actions: list[Action], model_delay: float = 0.0, transcript: Path | None = None
) -> dict[str, Any]:
    """Planner, one actor turn per action, then done and a `complete` verdict. Usage figures are
    fixed so that nothing depends on the page. With `transcript`, every request is recorded."""
    turns: list[dict[str, Any]] = [{"role": "planner", "reply": {"data": PLAN}}]
    for action in [*actions, {"name": "done", "arguments": {"answer": "finished"}}]:
        turns.append(
            {
                "role": "actor",
                "reply": {
                    "text": f"Next: {action['name']}.",
                    "tool_calls": [action],
                    "usage": {"input_tokens": 1000, "output_tokens": 20},
                },
            }
        )
    turns.append({"role": "validator", "reply": {"data": VERDICT}})
    written: dict[str, Any] = {"turns": turns, "bench_model_delay": model_delay}
    return written | ({"transcript": str(transcript)} if transcript else {})


def write_scenario(
    path: Path, actions: list[Action], model_delay: float = 0.0, transcript: Path | None = None
) -> str:
    """Writes the scenario and returns the model spec naming it."""
    path.write_text(yaml.safe_dump(scenario(actions, model_delay, transcript)))
    return f"scripted:{path}"


PAGE_FENCE = "<<<EXTERNAL_CONTENT"


def first_page_sent(transcript: Path) -> str:
    """The page message of the first actor request: the page as the model was sent it."""
    for line in transcript.read_text().splitlines():
        request = json.loads(line)
        if request["role"] == "actor":
            pages = [m for m in request["messages"] if PAGE_FENCE in m]
            return pages[-1] if pages else ""
    return ""


@dataclass(frozen=True)
class Event:
    name: str
    at_ms: float  # the payload's timestamp, set by the server when it emitted the event


@dataclass(frozen=True)
class RunRecord:
    events: list[Event]
    success: bool
    error: str
    seconds: float  # wall time seen by the client, request to end of stream

    @property
    def steps(self) -> int:
        return sum(1 for e in self.events if e.name == "agent:step")


async def automate(
    runs: run_service_pb2_grpc.RunServiceStub,
    url: str,
    model: str,
    iterations: int = 50,
    events: list[Event] | None = None,
) -> RunRecord:
    """One run to its end. Events are appended to `events` as they arrive when it is given (so
    that a caller who cancels the call keeps them; the run is then cancelled too)."""
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task="Benchmark: take the scripted steps on this page.",
            url=url,
            max_iterations=iterations,
        ),
        options=params_pb2.RunOptions(model=model, cancel_on_disconnect=True),
    )
    events = [] if events is None else events
    success, error = False, ""
    began = time.perf_counter()
    async for response in runs.Automate(request, timeout=900):
        if not response.HasField("event") or not response.event.HasField("automate"):
            continue
        automate_event = response.event.automate
        arm = automate_event.WhichOneof("event")
        payload = getattr(automate_event, arm)
        events.append(Event(event_name(response.event), float(getattr(payload, "timestamp", 0))))
        if arm == "complete":
            success, error = payload.success, payload.error.message
    return RunRecord(events, success, error, time.perf_counter() - began)


def channel(target: str) -> grpc.aio.Channel:
    limit = 64 * 1024 * 1024
    options = [("grpc.max_receive_message_length", limit)]
    return grpc.aio.insecure_channel(target, options=options)


async def one_run(target: str, url: str, model: str, iterations: int = 50) -> RunRecord:
    async with channel(target) as chan:
        return await automate(run_service_pb2_grpc.RunServiceStub(chan), url, model, iterations)


def failures(records: Sequence[RunRecord]) -> int:
    """How many runs failed; the first failure is printed."""
    failed = [r for r in records if not r.success]
    if failed:
        print(f"  WARNING: {len(failed)} of {len(records)} runs failed: {failed[0].error}")
    return len(failed)


@dataclass(frozen=True)
class StepTiming:
    """One agent step, from its agent:step to the next one, in milliseconds."""

    interval: float
    snapshot: (
        float  # agent:step -> system:debug_compression (snapshot, refs, redaction, compression)
    )
    screenshot: float  # -> browser:screenshot_captured (JPEG of the viewport, saved as artifact)
    model: float  # agent:processing -> ai:generation (the model call and its event)
    action: float  # browser:action_started -> browser:action_completed

    @property
    def overhead(self) -> float:
        """The harness's part of the step: everything but the model call."""
        return self.interval - self.model


def _at(events: list[Event]) -> dict[str, float]:
    """When each kind of event first happened in a step."""
    first: dict[str, float] = {}
    for event in events:
        first.setdefault(event.name, event.at_ms)
    return first


def _timing(step: list[Event]) -> StepTiming | None:
    at = _at(step)
    needed = ("system:debug_compression", "agent:processing", "ai:generation")
    if any(name not in at for name in needed):
        return None  # a step that failed before its model call
    compressed = at["system:debug_compression"]
    shot = at.get("browser:screenshot_captured", compressed)  # screenshots can be turned off
    started = at.get("browser:action_started", 0.0)
    return StepTiming(
        interval=step[-1].at_ms - step[0].at_ms,
        snapshot=compressed - step[0].at_ms,
        screenshot=shot - compressed,
        model=at["ai:generation"] - at["agent:processing"],
        action=at.get("browser:action_completed", started) - started,
    )


def step_timings(record: RunRecord) -> list[StepTiming]:
    """Timings of every step followed by another step (the last one, `done`, is not)."""
    starts = [i for i, e in enumerate(record.events) if e.name == "agent:step"]
    steps = [record.events[a : b + 1] for a, b in itertools.pairwise(starts)]
    return [t for t in map(_timing, steps) if t is not None]
