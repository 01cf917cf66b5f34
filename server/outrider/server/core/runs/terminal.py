"""The terminal events a run gets when it ends without its agent saying how (cancel, crash,
restart), in the shape each Tabstack stream documents: automate ends with `complete` then `done`;
research ends with `complete` or `error`."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from google.protobuf.message import Message

from outrider.server.core import clock
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import research_events_pb2 as re
from outrider.v1 import run_pb2


@dataclass(frozen=True)
class Ending:
    """Why a run ended abnormally: our own stable code, and the Tabstack automate code."""

    code: str  # e.g. CANCELLED, SERVER_RESTARTED, AGENT_CRASHED
    message: str
    automate_code: int = ae.AUTOMATE_ERROR_CODE_TASK_FAILED
    success: bool = False  # an agent that returned success but emitted no `complete`
    result: str = ""


@dataclass(frozen=True)
class RunStats:
    started_us: int
    iterations: int
    actions: int


def terminal_payloads(
    kind: int, seen: Collection[str], ending: Ending, stats: RunStats
) -> list[Message]:
    """The terminal events still missing, given the event names the run already emitted."""
    if kind == run_pb2.RUN_KIND_AUTOMATE:
        return _automate_terminal(seen, ending, stats)
    if kind == run_pb2.RUN_KIND_RESEARCH:
        return _research_terminal(seen, ending)
    raise ValueError(f"unknown run kind {kind}")


def _automate_terminal(seen: Collection[str], ending: Ending, stats: RunStats) -> list[Message]:
    payloads: list[Message] = []
    if "complete" not in seen:
        end_us = clock.now_us()
        complete = ae.AutomateComplete(
            success=ending.success,
            stats=ae.AutomateStats(
                actions=stats.actions,
                iterations=stats.iterations,
                start_time=clock.epoch_ms(stats.started_us),
                end_time=clock.epoch_ms(end_us),
                duration_ms=(end_us - stats.started_us) / 1000.0,
            ),
        )
        if ending.success:
            complete.final_answer = ending.result
        else:
            complete.error.code = ending.automate_code  # type: ignore[assignment]
            complete.error.message = ending.message
        payloads.append(ae.AutomateEvent(complete=complete))
    if "done" not in seen:
        payloads.append(ae.AutomateEvent(done=ae.AutomateDone()))
    return payloads


def _research_terminal(seen: Collection[str], ending: Ending) -> list[Message]:
    if "complete" in seen or "error" in seen:
        return []
    if ending.success:
        complete = re.ResearchComplete(
            report=ending.result,
            message="Research complete",
            timestamp=clock.epoch_ms(clock.now_us()),
        )
        return [re.ResearchEvent(complete=complete)]
    error = re.ResearchError(
        error=re.ResearchErrorDetail(name=ending.code, message=ending.message),
        message=ending.message,
        timestamp=clock.epoch_ms(clock.now_us()),
    )
    return [re.ResearchEvent(error=error)]
