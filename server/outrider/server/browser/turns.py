"""The tool calls of one model turn, carried out in order. Each is an action of its own (events,
firewall, approvals, recipes); the turn stops at the first call that loads a page or switches
tabs, opens a dialog, fails, asks the user or ends the run, and before a call whose target is
gone or changed or when new elements appeared since the model chose the calls: the model chose
them all on one snapshot, and must look again when the page is no longer that one. Calls not
carried out get a result saying why, so the model knows exactly which ran.

Between calls the page is read again (not sent to the model): tens of milliseconds against the
model call per action that a turn of several calls saves."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from outrider.server.browser.actions import ActionResult
from outrider.server.browser.connection import Connection
from outrider.server.browser.conversation import Conversation
from outrider.server.browser.human_control import TAKEN_OVER, HumanControl
from outrider.server.browser.observe import Observer
from outrider.server.browser.recipes import role_and_name, shown_refs
from outrider.server.browser.reporting import Reporter
from outrider.server.core.runs.agent import RunContext
from outrider.server.models.base import ToolCall

# Calls that move to another page or tab whatever their outcome: nothing chosen on the old
# page applies after them.
MOVING = frozenset({"goto", "back", "forward", "reload", "tabs"})
# They wait for a person (also seen in RunContext.questions, which counts approvals too).
ASKING = frozenset({"request_input", "request_human"})
Targets = list[list[str]]  # [role, accessible name] of each element a call names


@dataclass(frozen=True)
class TurnOutcome:
    ran: int  # calls carried out (refused ones included)
    last: ActionResult | None  # the result of the last one; done and abort end the run there
    stopped: str = ""  # why the calls after `ran` were not carried out


class TurnsRun(Protocol):
    """What the turn runner uses of its run (browser/run.py): its parts, and `handle`, which
    carries out one call."""

    @property
    def ctx(self) -> RunContext: ...
    @property
    def reporter(self) -> Reporter: ...
    @property
    def conversation(self) -> Conversation: ...
    @property
    def connection(self) -> Connection: ...
    @property
    def observer(self) -> Observer: ...
    @property
    def human(self) -> HumanControl: ...
    async def handle(
        self, call: ToolCall, iteration_id: str, view: str, turn: int, targets: Targets | None
    ) -> ActionResult: ...


@dataclass(frozen=True)
class _Where:
    """What a call may change that ends the turn."""

    tab: int
    url: str
    dialogs: int
    asked: int


class TurnRunner:
    def __init__(self, run: TurnsRun, limit: int) -> None:
        self._run = run
        self.limit = limit

    async def run(
        self,
        calls: Sequence[ToolCall],
        iteration_id: str,
        turn: int,
        targets: Sequence[Targets | None] = (),
    ) -> TurnOutcome:
        """Carries out `calls` (chosen on the observer's newest view); `targets` names each
        call's elements when the caller knows them (a replayed recipe)."""
        chosen_on = view = self._run.observer.last_view
        last: ActionResult | None = None
        for index, call in enumerate(calls):
            if self._run.human.gate.page_is_stale:  # chosen before a person had the browser
                return self._stop(calls, index, last, TAKEN_OVER, iteration_id)
            if index > 0:
                why, view = await self._before(call, index, chosen_on, calls[index - 1])
                if why:
                    return self._stop(calls, index, last, why, iteration_id)
            before = self._where()
            known = targets[index] if index < len(targets) else None
            last = await self._run.handle(call, iteration_id, view, turn, known)
            why = self._after(call, last, before)
            if why and index + 1 < len(calls):
                return self._stop(calls, index + 1, last, why, iteration_id)
        return TurnOutcome(len(calls), last)

    async def _before(
        self, call: ToolCall, index: int, chosen_on: str, previous: ToolCall
    ) -> tuple[str, str]:
        """(why the call must not be carried out, or ""; the page's view now)."""
        if index >= self.limit:
            return f"at most {self.limit} actions are carried out per turn", ""
        view = await self._run.observer.reread()
        if view is None:
            return f"the page was changing after the {describe(previous)}", ""
        for ref in _refs(call):
            seen, now = role_and_name(chosen_on, ref), role_and_name(view, ref)
            if seen is None:
                return f"{ref} is not in the snapshot these calls were chosen on", view
            if now != seen:
                return f"{ref} is no longer on the page as you saw it", view
        appeared = [ref for ref in shown_refs(view) if ref not in set(shown_refs(chosen_on))]
        if appeared:
            shown = ", ".join(appeared[:5]) + (" ..." if len(appeared) > 5 else "")
            return f"new elements appeared after the {describe(previous)} ({shown})", view
        return "", view

    def _where(self) -> _Where:
        session = self._run.connection.session
        page = session.current
        return _Where(
            session.key_of(page) if page is not None else 0,
            page.url if page is not None else "",
            session.notices.dialogs,
            self._run.ctx.questions,
        )

    def _after(self, call: ToolCall, result: ActionResult, before: _Where) -> str:
        """Why the calls after this one must not be carried out, or ""."""
        if self._run.human.gate.page_is_stale:
            return TAKEN_OVER
        if result.answer is not None or result.abort_reason is not None:
            return f"the turn ended with {call.name}"
        if not result.ok:
            return f"the {describe(call)} failed"
        if not self._run.connection.alive:
            return "the browser was restarted"
        now = self._where()
        if call.name in ASKING or now.asked != before.asked:
            return f"the {describe(call)} waited for the user"
        if now.tab != before.tab:
            return f"the {describe(call)} switched to another tab"
        if call.name in MOVING or now.url != before.url:
            return f"the {describe(call)} loaded another page"
        if now.dialogs != before.dialogs:
            return f"a dialog opened after the {describe(call)}"
        return ""

    def _stop(
        self,
        calls: Sequence[ToolCall],
        ran: int,
        last: ActionResult | None,
        why: str,
        iteration_id: str,
    ) -> TurnOutcome:
        for call in calls[ran:]:
            self._run.conversation.add_result(
                call,
                f"Not carried out: {why}. Look at the page as it is now and call it again if "
                "it still applies.",
            )
        self._run.reporter.status(
            iteration_id, f"carried out {ran} of the turn's {len(calls)} actions: {why}"
        )
        return TurnOutcome(ran, last, why)


def describe(call: ToolCall) -> str:
    """ "click E9", "fill E3", "scroll": how results and events name a call."""
    ref = call.arguments.get("ref")
    return f"{call.name} {ref}" if isinstance(ref, str) and ref else call.name


def _refs(call: ToolCall) -> list[str]:
    refs = call.arguments.get("refs", [])
    found = [call.arguments["ref"]] if "ref" in call.arguments else refs
    return [str(ref) for ref in found] if isinstance(found, list) else []
