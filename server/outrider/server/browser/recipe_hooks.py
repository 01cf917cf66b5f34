"""A browser run's use of recipes (RunOptions.recipes, on servers with OUTRIDER_RECIPES): find
the task's recipe and replay it, or record the run's actions and keep them when it succeeds.
The run calls these hooks; with recipes off every hook does nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from outrider.server.browser.recipe_store import Recipe, RecipeStore, Step
from outrider.server.browser.recipes import REPLAYABLE, Recorder, Values, recipe_key, role_and_name
from outrider.server.browser.replay import Divergence, ReplayedRun, Replayer
from outrider.server.core.runs.agent import RunContext
from outrider.server.models.base import ToolCall
from outrider.server.telemetry import metrics
from outrider.v1 import params_pb2, run_pb2
from outrider.v1 import run_event_pb2 as rp

Plan = dict[str, Any]


class RecipeRun(ReplayedRun, Protocol):
    """What the recipe hooks use of their run (browser/run.py): what a replay uses, and more."""

    @property
    def ctx(self) -> RunContext: ...
    @property
    def data_view(self) -> Any: ...


class RunRecipes:
    def __init__(self, run: RecipeRun, store: RecipeStore | None) -> None:
        self._run = run
        mode = run.ctx.options.recipes
        wanted = mode in (params_pb2.RECIPE_MODE_RECORD, params_pb2.RECIPE_MODE_REPLAY)
        self._store = store if wanted else None
        self._may_replay = mode == params_pb2.RECIPE_MODE_REPLAY
        self._unavailable = wanted and store is None
        self.key = recipe_key(run.ctx.tenant, run.params.task, run.params.url)
        self.values = Values(run.secrets, run.data_view)
        self._recorder = Recorder(self.values) if self._store is not None else None
        self._recipe: Recipe | None = None
        self._plan: Plan = {}

    async def plan(self, ask_model: Callable[[], Awaitable[Plan]]) -> Plan:
        """The recipe's plan when there is one to replay, else the model's."""
        if self._unavailable:
            self._run.reporter.status("plan", "recipes are not kept on this server; ignored")
        if self._store is not None and self._may_replay:
            self._recipe = self._store.active(self.key)
        if self._recipe is not None:
            try:
                self._plan = self.values.restored(self._recipe.plan)
            except KeyError:
                self._plan = {"plan": "Replay the recorded steps.", "success_criteria": ""}
        else:
            self._plan = await ask_model()
        return self._plan

    async def replay(self) -> tuple[run_pb2.RunOutcome | None, int]:
        """Replays the recipe, if any: (the outcome when it finished the task, the next step)."""
        if self._recipe is None:
            return None, 1
        replayed = await Replayer(self._run, self, self._recipe).replay()
        if replayed.divergence is not None:
            self._hand_over(replayed.steps, replayed.divergence)
        return replayed.outcome, replayed.turns + 1

    def replayed(self, steps: int) -> None:
        """The replay finished the task (before its terminal events)."""
        assert self._recipe is not None and self._store is not None
        self._store.replayed(self._recipe.id)
        self._tell(steps, "", retired=False)
        metrics.recipe_run("replayed", steps)

    def _hand_over(self, replayed: int, divergence: Divergence) -> None:
        assert self._recipe is not None and self._store is not None
        retired = divergence.the_recipes_fault and self._store.failed(self._recipe.id)
        self._tell(replayed, str(divergence), retired)
        metrics.recipe_run("handed_over", replayed)
        rest = "\n".join(
            f"- {step.action} {' '.join(map(str, step.targets))} {self._shown(step)}".rstrip()
            for step in self._recipe.steps[replayed:]
        )
        self._run.conversation.add_note(
            "The harness replayed the first steps of a recipe recorded from an earlier "
            f"successful run of this task, then stopped: {divergence}. Continue the task from "
            f"the current page yourself. The recipe's remaining steps, as a hint (targets are "
            f"[role, name]):\n{rest}"
        )

    def _shown(self, step: Step) -> dict[str, Any]:
        """A step's arguments as the model may see them: `data` values are in its prompt
        already; {{data:...}} placeholders would mean nothing to it."""
        try:
            shown: dict[str, Any] = self.values.restored(step.arguments)
        except KeyError:
            return step.arguments
        return shown

    def _tell(self, replayed: int, divergence: str, retired: bool) -> None:
        assert self._recipe is not None
        event = rp.RecipeReplayed(
            recipe_id=self._recipe.id,
            steps_total=len(self._recipe.steps),
            steps_replayed=replayed,
            handed_over=bool(divergence),
            divergence=divergence,
            retired=retired,
        )
        self._run.ctx.emit(event)

    # recording

    def before(
        self, call: ToolCall, view: str, turn: int, targets: list[list[str]] | None = None
    ) -> None:
        """Notes the page state (the view the call was chosen on or checked against) and the
        names of the call's targets (recording runs only); a replayed call brings its step's
        targets."""
        if self._recorder is None:
            return
        if targets is None:
            targets = self._targets(call, view) if call.name in REPLAYABLE else []
        page = self._run.connection.session.page
        self._recorder.before(call, page.url, view, targets, turn)

    def after(self, ok: bool) -> None:
        if self._recorder is not None:
            self._recorder.after(ok)

    def succeeded(self, answer: str, quality: str) -> None:
        """Keeps the run as the task's recipe unless the task already has an active one (a
        replayed recipe that handed over stays until it is retired)."""
        if self._recorder is None or self._store is None:
            return
        if self._run.human.taken:  # the person's steps are not among the recorded ones
            self._recorder.spoil("a person took over the browser")
        params = self._run.params
        recipe = self._recorder.recipe(
            self.key, params.task, params.url, self._plan, answer, quality
        )
        if recipe is None:
            reason = self._recorder.spoiled or "it took no action"
            self._run.reporter.status("end", f"no recipe kept: {reason}")
        elif self._store.keep(recipe):
            metrics.recipe_run("recorded", 0)

    def _targets(self, call: ToolCall, view: str) -> list[list[str]] | None:
        """[role, name] of each element the call names, from the view the model chose it on;
        None when one is not there (a ref from find, or an element on another tab)."""
        refs = call.arguments.get("refs", [])
        refs = [call.arguments["ref"]] if "ref" in call.arguments else refs
        targets = [role_and_name(view, str(ref)) for ref in refs]
        kept = [target for target in targets if target is not None]
        return kept if len(kept) == len(targets) else None
