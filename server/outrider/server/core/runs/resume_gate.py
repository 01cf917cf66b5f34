"""What a browser run taken over after the loss of its replica does when its side-effect journal
is not empty (RunOptions.resume_after_side_effects): starting its task again from its start URL
could repeat what it did (an order sent, a message posted), so that happens only with consent.

- REPEAT: resume as a run without side effects does (the caller opted in).
- END: end the run, failed with RESUME_UNSAFE and the list of what was done.
- ASK: ask the caller first with an approval listing it; approved, resume; rejected or
  expired, end as END does.

Unspecified means ASK for interactive runs whose caller can answer approvals, END for every
other run. A run whose journal is empty resumes regardless: everything it did repeats harmlessly
(reads, fills, navigation).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from google.protobuf import struct_pb2

from outrider.server.core.runs.agent import Agent, Params, RunContext
from outrider.server.core.runs.side_effects import describe, line
from outrider.server.core.runs.terminal import Ending
from outrider.v1 import params_pb2, run_event_pb2, run_pb2

ASK = params_pb2.RESUME_AFTER_SIDE_EFFECTS_ASK
END = params_pb2.RESUME_AFTER_SIDE_EFFECTS_END
REPEAT = params_pb2.RESUME_AFTER_SIDE_EFFECTS_REPEAT
RESUME_UNSAFE = "RESUME_UNSAFE"


def can_be_asked(run: run_pb2.Run) -> bool:
    """Someone can answer an approval of this run (as the action firewall's holds need)."""
    return run.automate.interactive and not run.options.refuse_held_actions


def policy_of(run: run_pb2.Run) -> int:
    """The run's choice, or the default by interactivity."""
    chosen = run.options.resume_after_side_effects
    if chosen:
        return int(chosen)
    return ASK if can_be_asked(run) else END


def unsafe_ending(effects: list[run_event_pb2.SideEffect], refused: str = "") -> Ending:
    """How a run ends that may not start its task again: RESUME_UNSAFE, with what it did."""
    why = refused or "it was not asked to repeat them (resume_after_side_effects)"
    return Ending(
        RESUME_UNSAFE,
        f"{RESUME_UNSAFE}: the replica executing the run was lost after the run had done "
        f"{_things(effects)} that starting the task again could repeat, so it was not resumed: "
        f"{why}. Check their effect before running the task again:\n{describe(effects)}",
    )


def resumed_note(effects: list[run_event_pb2.SideEffect]) -> str:
    """What the agent's model is told when a run with side effects resumes."""
    return (
        "This run was interrupted (its server was lost) and starts again from the beginning. "
        f"Before the interruption it had already done {_things(effects)}, which may have taken "
        f"effect:\n{describe(effects)}\nCheck the page for their results before doing any of "
        "them again, and do not repeat one that took effect."
    )


def _things(effects: list[run_event_pb2.SideEffect]) -> str:
    return "1 thing" if len(effects) == 1 else f"{len(effects)} things"


class AskBeforeResuming:
    """The run's agent, behind an approval listing what the lost attempts did."""

    def __init__(self, agent: Agent, effects: list[run_event_pb2.SideEffect]) -> None:
        self._agent = agent
        self._effects = effects

    def preflight(self, params: Params, options: params_pb2.RunOptions) -> None:
        self._agent.preflight(params, options)

    async def readiness(self) -> str:
        return await self._agent.readiness()

    async def run(self, ctx: RunContext) -> run_pb2.RunOutcome:
        answer = await ctx.ask_approval(self._request(ctx))
        if answer.decision == run_event_pb2.APPROVAL_DECISION_APPROVE:
            return await self._agent.run(ctx)
        if answer.source == run_event_pb2.RESOLUTION_SOURCE_EXPIRED:
            refused = "nobody answered the approval to resume it in time"
        else:
            refused = "the caller did not approve resuming it" + (
                f" ({answer.reason})" if answer.reason else ""
            )
        ending = unsafe_ending(self._effects, refused)
        return run_pb2.RunOutcome(
            success=False, error_code=ending.code, error_message=ending.message
        )

    async def aclose(self) -> None:
        """Nothing of its own: the wrapped agent is shared and closed by its owner."""

    def _request(self, ctx: RunContext) -> run_event_pb2.ApprovalRequested:
        reason = (
            f"the server running it was lost after the run had done {_things(self._effects)} "
            "that starting its task again could repeat"
        )
        host = urlsplit(ctx.automate.url).hostname or "its start page"
        request = run_event_pb2.ApprovalRequested(
            iteration_id="resume",
            action="resume",
            url=ctx.automate.url,
            reason=reason,
            question=f"Start the task again on {host} — {reason}; if you reject, the run ends",
        )
        listed = struct_pb2.ListValue()
        for effect in self._effects:
            listed.append(line(effect))
        request.details.fields["side_effects"].list_value.CopyFrom(listed)
        request.details.fields["rejected_ends_with"].string_value = "RESUME_UNSAFE"
        return request
