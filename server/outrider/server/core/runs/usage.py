"""What a run has used so far (Run.usage): its agent's steps and browser actions, and its model
calls' tokens and estimated cost. Kept on the record of a run executed here as its agent goes
(so reading it from this process is current), and saved with the record at each new step, so
the listing of every replica sharing the store is at most one step behind; the run's end saves
it once more with its outcome."""

from __future__ import annotations

from collections.abc import Callable

from outrider.v1 import run_pb2

# Events that begin a step: a browser run's loop iteration, a research run's phase.
STEP_EVENTS = frozenset(
    {
        "agent:step",
        "prefetching:start",
        "planning:start",
        "searching:start",
        "analyzing:start",
        "following:start",
        "evaluating:start",
        "outlining:start",
        "writing:start",
        "judging:start",
    }
)
ACTION_EVENT = "browser:action_started"


class UsageTally:
    """Counts into `run.usage` (the run's record); `save` keeps the record in the store."""

    def __init__(self, run: run_pb2.Run, save: Callable[[], None]) -> None:
        self._usage = run.usage
        self._save = save

    def saw(self, event: str) -> None:
        """An event the run emitted: a new step is counted and saved, an action counted."""
        if event in STEP_EVENTS:
            self._usage.steps += 1
            self._save()
        elif event == ACTION_EVENT:
            self._usage.actions += 1

    def add(self, input_tokens: int, output_tokens: int, cost_usd: float | None) -> None:
        """One model call's tokens and, when its model has a price, its estimated cost."""
        self._usage.input_tokens += max(input_tokens, 0)
        self._usage.output_tokens += max(output_tokens, 0)
        if cost_usd is not None:
            self._usage.estimated_cost_usd = self._usage.estimated_cost_usd + cost_usd
