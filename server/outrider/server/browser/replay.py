"""Replaying a recipe: each step is carried out without the model while the page is the one it
was recorded on and its targets resolve to exactly one element by role and accessible name. At
the first divergence (another page, a target missing or ambiguous, a failed action, a value this
run lacks) the model takes over, with the recipe's remaining steps as a hint; the replayed steps
stay in its conversation as if it had made them."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Protocol, cast

from playwright.async_api import Error as PlaywrightError

from outrider.server.browser.connection import Connection
from outrider.server.browser.conversation import Conversation
from outrider.server.browser.endings import Endings
from outrider.server.browser.human_control import NOT_DONE, TAKEN_OVER, HumanControl
from outrider.server.browser.observe import Observer
from outrider.server.browser.page_model import SLOW_PAGE_NOTE
from outrider.server.browser.recipe_store import Recipe, Step
from outrider.server.browser.recipes import Values, fingerprint, page_address, refs_named
from outrider.server.browser.refs import RefMap
from outrider.server.browser.reporting import Reporter
from outrider.server.browser.secrets import Secrets
from outrider.server.browser.turns import TurnRunner
from outrider.server.core.events.names import by_wire_value
from outrider.server.models.base import ModelReply, ToolCall
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import params_pb2, run_pb2

_QUALITY = by_wire_value(ae.CompletionQuality.DESCRIPTOR)
# Counts the matches and marks the only one, in one round trip.
_MARK_JS = """(found, tag) => {
  if (found.length === 1) found[0].setAttribute('data-outrider-ref', tag);
  return found.length;
}"""
_REPLAYED = (
    "Replayed a recipe: the page matched the one this answer was validated on when the recipe "
    "was recorded."
)


class Divergence(Exception):
    """The page no longer matches the recipe; the message says how (for the model and event).
    `the_recipes_fault` is False when the browser, not the page, differed (an overloaded
    browser's partial view): such a hand-over does not count towards retiring the recipe.
    `ran`: steps of the diverging turn carried out before it diverged."""

    def __init__(self, message: str, the_recipes_fault: bool = True, ran: int = 0) -> None:
        super().__init__(message)
        self.the_recipes_fault = the_recipes_fault
        self.ran = ran


@dataclass(frozen=True)
class Replayed:
    outcome: run_pb2.RunOutcome | None  # when the replay finished the task
    steps: int  # steps carried out
    turns: int  # turns begun (the model's first turn, if it takes over, is the next)
    divergence: Divergence | None = None


def turns_of(steps: list[Step]) -> list[list[Step]]:
    """The recipe's steps by the model turn that chose them (a step of turn 0 is a turn alone)."""
    turns: list[list[Step]] = []
    for step in steps:
        if turns and step.turn and turns[-1][-1].turn == step.turn:
            turns[-1].append(step)
        else:
            turns.append([step])
    return turns


class ReplayedRun(Protocol):
    """What a replay uses of its run (browser/run.py)."""

    @property
    def params(self) -> params_pb2.AutomateParams: ...
    @property
    def reporter(self) -> Reporter: ...
    @property
    def secrets(self) -> Secrets: ...
    @property
    def refs(self) -> RefMap: ...
    @property
    def conversation(self) -> Conversation: ...
    @property
    def connection(self) -> Connection: ...
    @property
    def observer(self) -> Observer: ...
    @property
    def human(self) -> HumanControl: ...
    @property
    def turns(self) -> TurnRunner: ...
    @property
    def endings(self) -> Endings: ...


class ReplayHooks(Protocol):
    """What a replay uses of the run's recipe hooks (browser/recipe_hooks.py)."""

    @property
    def values(self) -> Values: ...
    def replayed(self, steps: int) -> None: ...


class Replayer:
    def __init__(self, run: ReplayedRun, hooks: ReplayHooks, recipe: Recipe) -> None:
        self._run, self._hooks, self._recipe = run, hooks, recipe
        self._values: Values = hooks.values
        self._tags = itertools.count(1)

    async def replay(self) -> Replayed:
        turns, replayed = turns_of(self._recipe.steps), 0
        for number, steps in enumerate(turns, start=1):
            try:
                outcome = await self._turn(number, steps, last=number == len(turns))
            except Divergence as divergence:
                return Replayed(None, replayed + divergence.ran, number, divergence)
            replayed += len(steps)
            if outcome is not None:
                return Replayed(outcome, replayed, number)
        ended = Divergence("the recipe ended without an answer")
        return Replayed(None, replayed, len(turns), ended)

    async def _turn(self, number: int, steps: list[Step], last: bool) -> run_pb2.RunOutcome | None:
        """The steps one model turn chose, carried out as that turn was: in order, stopping
        where the page changes under the next (browser/turns.py)."""
        run, iteration_id = self._run, f"step-{number}"
        run.reporter.tally.steps = number
        run.reporter.emit(
            "agent_step", ae.AgentStep(current_iteration=number, iteration_id=iteration_id)
        )
        # Screenshots serve the model; a replay takes one only of the page it ends on.
        has_screenshot = await run.observer.observe(iteration_id, screenshot=last)
        run.reporter.emit(
            "agent_processing",
            ae.AgentProcessing(
                iteration_id=iteration_id,
                operation="Replaying a recorded step",
                has_screenshot=has_screenshot,
            ),
        )
        self._check_page(steps[0])
        calls = [await self._call(f"{number}-{index}", s) for index, s in enumerate(steps, 1)]
        run.conversation.add_reply(ModelReply(tool_calls=tuple(calls)))
        turn = await run.turns.run(calls, iteration_id, number, [s.targets for s in steps])
        if run.human.gate.page_is_stale:  # not the recipe's fault: the page is the person's now
            last_not_done = turn.last is not None and turn.last.message == NOT_DONE
            raise Divergence(TAKEN_OVER, False, turn.ran - 1 if last_not_done else turn.ran)
        result = turn.last
        assert result is not None
        if not result.ok:
            failed = calls[turn.ran - 1].name
            raise Divergence(f"the {failed} failed: {result.message}", ran=turn.ran - 1)
        if turn.ran < len(calls):
            raise Divergence(
                f"the page changed during a recorded turn: {turn.stopped}", ran=turn.ran
            )
        if result.answer is not None:
            return self._finish(result.answer, iteration_id)
        run.reporter.metrics(iteration_id, final=False)
        return None

    def _check_page(self, step: Step) -> None:
        page = self._run.connection.session.page
        if page_address(page.url) != step.url:
            raise Divergence(f"the page is {page_address(page.url)}, not {step.url}")
        if self._run.observer.last_view.startswith(SLOW_PAGE_NOTE):
            raise Divergence("the browser was too busy to read the whole page", False)
        if fingerprint(self._run.observer.last_view) != step.fingerprint:
            raise Divergence(f"the page at {step.url} looks different from when it was recorded")

    async def _call(self, number: str, step: Step) -> ToolCall:
        if step.action == "request_input" and not self._run.params.interactive:
            raise Divergence("the recipe asks the caller for form data; this run cannot")
        try:
            arguments = self._values.restored(step.arguments)
        except KeyError as missing:
            raise Divergence(f"this run has no value for {missing.args[0]}") from None
        refs = [await self._ref(role, name) for role, name in step.targets]
        if step.action == "request_input":
            arguments["refs"] = refs
        elif refs:
            arguments["ref"] = refs[0]
        return ToolCall(f"recipe-{number}", step.action, arguments)

    async def _ref(self, role: str, name: str) -> str:
        """Our ref for the one element of that role and exact name: from the view just taken
        (no browser call), else from Playwright's role query (elements the view left out)."""
        in_view = refs_named(self._run.observer.last_view, [role, name])
        if len(in_view) == 1:
            return in_view[0]
        if len(in_view) > 1:
            raise Divergence(f'{role} "{name}" is on the page {len(in_view)} times')
        session = self._run.connection.session
        page = session.page
        role_literal: Any = role  # Playwright's role Literal; an unknown role fails below
        locator = (
            page.get_by_role(role_literal, name=name, exact=True)
            if name
            else page.get_by_role(role_literal)
        )
        tag = f"recipe{next(self._tags)}"
        try:
            count = await locator.evaluate_all(_MARK_JS, tag)
        except PlaywrightError as error:
            raise Divergence(f'{role} "{name}" could not be found: {error.message}') from None
        if count == 1:
            return self._run.refs.ours(session.key_of(page), f"dom{tag}")
        where = "is not on the page" if count == 0 else f"is on the page {count} times"
        raise Divergence(f'{role} "{name}" {where}')

    def _finish(self, answer: str, iteration_id: str) -> run_pb2.RunOutcome:
        run = self._run
        validated = ae.TaskValidated(
            completion_quality=cast("ae.CompletionQuality", _QUALITY[self._recipe.quality]),
            final_answer=run.secrets.redact(answer),
            iteration_id=iteration_id,
            observation=_REPLAYED,
        )
        run.reporter.emit("task_validated", validated)
        self._hooks.replayed(len(self._recipe.steps))
        return run.endings.success(answer, iteration_id)
