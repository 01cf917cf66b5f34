"""Readers for research events in tests."""

from __future__ import annotations

from typing import Any

from outrider.server.core.events.names import event_name
from outrider.v1 import research_events_pb2 as re_pb
from outrider.v1 import run_event_pb2


def research_names(events: list[run_event_pb2.RunEvent]) -> list[str]:
    return [event_name(e) for e in events]


def payloads(events: list[run_event_pb2.RunEvent], arm: str) -> list[Any]:
    """The payloads of one arm (e.g. "analyzing_end") in order."""
    return [
        getattr(e.research, arm)
        for e in events
        if e.HasField("research") and e.research.WhichOneof("event") == arm
    ]


def complete(events: list[run_event_pb2.RunEvent]) -> re_pb.ResearchComplete:
    found = payloads(events, "complete")
    assert len(found) == 1, research_names(events)
    result: re_pb.ResearchComplete = found[0]
    return result


def iteration_phases(mode_has_following: bool = True) -> list[str]:
    phases = ["iteration:start", "searching:start", "searching:end"]
    phases += ["analyzing:start", "analyzing:end"]
    if mode_has_following:
        phases += ["following:start", "following:end"]
    return [*phases, "evaluating:start", "evaluating:end", "iteration:end"]
