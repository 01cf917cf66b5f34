"""The attempts of a run resumed after the replica executing it was lost, and what its `complete`
says of them: its stats count every attempt (each one listed), and its message says that the run
was resumed and which side effects went out before and after the loss. Every watcher learns it,
those who did not opt in to Outrider's own events (`run_resumed`, `side_effect`) too."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from google.protobuf.message import Message

from outrider.server.core import clock
from outrider.server.core.events.names import event_name
from outrider.server.core.runs.side_effects import line
from outrider.server.core.storage import Store
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import research_events_pb2 as re
from outrider.v1 import run_event_pb2 as rp

LOST = "lost with its replica"
_PAGE = 1000  # events read at once


@dataclass
class Attempt:
    """One execution of a run: the first, or one after a takeover."""

    number: int  # 1 for the first
    start_ms: float
    end_ms: float
    iterations: int = 0
    actions: int = 0
    side_effects: list[str] = field(default_factory=list)


def lost_attempts(store: Store, run_id: str) -> list[Attempt]:
    """The attempts the run's stored events show (each `run_resumed` begins one), read by its
    claimant: all of them were lost with their replicas."""
    attempts: list[Attempt] = []
    after = 0
    while batch := store.events_after(run_id, after, _PAGE):
        for event in batch:
            name, at = event_name(event), clock.epoch_ms(event.time.ToMicroseconds())
            if not attempts or name == "run_resumed":
                attempts.append(Attempt(len(attempts) + 1, at, at))
            current = attempts[-1]
            current.end_ms = max(current.end_ms, at)
            current.iterations += name == "agent:step"
            current.actions += name == "agent:action"
        after = batch[-1].sequence
    for effect in store.side_effects(run_id):
        if effect.attempt < len(attempts):
            attempts[effect.attempt].side_effects.append(line(effect))
    return attempts


def counting_every_attempt(
    payload: Message, earlier: Sequence[Attempt], effects: Sequence[rp.SideEffect]
) -> Message:
    """`payload` (an event the run's latest attempt emits) as it goes out: its `complete` with
    the stats and the words of every attempt. `effects`: the latest attempt's side effects."""
    if not earlier:
        return payload
    if isinstance(payload, ae.AutomateEvent) and payload.HasField("complete"):
        _automate_complete(payload.complete, earlier, effects)
    elif isinstance(payload, re.ResearchEvent) and payload.HasField("complete"):
        note = resumed_note(earlier, [])
        payload.complete.message = f"{payload.complete.message} ({note})"
    return payload


def closed_complete(complete: ae.AutomateComplete, lost: Sequence[Attempt]) -> None:
    """The `complete` a claimant writes for a lost run it ends rather than resumes: its stats
    count the lost attempts."""
    if lost:
        _count(complete.stats, lost, None)


def _automate_complete(
    complete: ae.AutomateComplete, earlier: Sequence[Attempt], effects: Sequence[rp.SideEffect]
) -> None:
    stats = complete.stats
    latest = Attempt(
        len(earlier) + 1,
        stats.start_time,
        stats.end_time,
        stats.iterations,
        stats.actions,
        [line(effect) for effect in effects],
    )
    _count(stats, earlier, latest)
    complete.message = resumed_note(earlier, latest.side_effects)
    if not complete.success and complete.error.message:
        complete.error.message = f"{complete.error.message} ({complete.message})"


def _count(stats: ae.AutomateStats, lost: Sequence[Attempt], latest: Attempt | None) -> None:
    """Stats of every attempt: `lost` ones, then the `latest` (whose figures `stats` holds)."""
    every = [*lost, *([latest] if latest else [])]
    stats.iterations = sum(a.iterations for a in every)
    stats.actions = sum(a.actions for a in every)
    stats.start_time = lost[0].start_ms
    stats.end_time = max(stats.end_time, every[-1].end_ms)
    stats.duration_ms = stats.end_time - stats.start_time
    del stats.attempts[:]
    for attempt in every:
        ended = LOST if attempt is not latest else "ended the run"
        stats.attempts.add(
            attempt=attempt.number,
            ended=ended,
            start_time=attempt.start_ms,
            end_time=attempt.end_ms,
            iterations=attempt.iterations,
            actions=attempt.actions,
            side_effects=attempt.side_effects,
        )


def resumed_note(earlier: Sequence[Attempt], after: Sequence[str]) -> str:
    """The words: resumed, how many attempts, the side effects before and after the loss."""
    lost = ", ".join(f"attempt {a.number}" for a in earlier)
    before = [effect for attempt in earlier for effect in attempt.side_effects]
    return (
        f"resumed after a replica loss: the task ran {len(earlier) + 1} times ({lost} "
        f"{'was' if len(earlier) == 1 else 'were'} {LOST}); side effects sent before the loss: "
        f"{_listed(before)}; after it: {_listed(after)}"
    )


def _listed(effects: Sequence[str]) -> str:
    if not effects:
        return "none"
    return "; ".join(f"{number}. {effect}" for number, effect in enumerate(effects, 1))
