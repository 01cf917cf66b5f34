"""The validator's verdict on a run's final answer: accepted (the run succeeds), rejected with
feedback for the actor (it keeps working), or rejected once too often (the run fails)."""

from __future__ import annotations

from typing import Protocol, cast

from outrider.server.browser.connection import Connection
from outrider.server.browser.conversation import Conversation
from outrider.server.browser.endings import Endings
from outrider.server.browser.model_calls import ModelCaller
from outrider.server.browser.observe import Observer
from outrider.server.browser.prompts import VALIDATION_SCHEMA, validation_text
from outrider.server.browser.recipe_hooks import RunRecipes
from outrider.server.browser.reporting import Reporter
from outrider.server.browser.secrets import Secrets
from outrider.server.core import validation
from outrider.server.core.events.names import by_wire_value
from outrider.server.models.base import Message, ModelRequest
from outrider.server.telemetry import steps
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import params_pb2, run_pb2

_QUALITY = by_wire_value(ae.CompletionQuality.DESCRIPTOR)
ACCEPTED_QUALITY = frozenset({"complete", "excellent"})


class ValidatedRun(Protocol):
    """What the validator uses of its run (browser/run.py)."""

    @property
    def params(self) -> params_pb2.AutomateParams: ...
    @property
    def reporter(self) -> Reporter: ...
    @property
    def secrets(self) -> Secrets: ...
    @property
    def caller(self) -> ModelCaller: ...
    @property
    def conversation(self) -> Conversation: ...
    @property
    def connection(self) -> Connection: ...
    @property
    def observer(self) -> Observer: ...
    @property
    def recipes(self) -> RunRecipes: ...
    @property
    def endings(self) -> Endings: ...


class Validator:
    def __init__(self, run: ValidatedRun) -> None:
        self._run = run
        self.validations = 0

    async def validate(self, answer: str, iteration_id: str) -> run_pb2.RunOutcome | None:
        run = self._run
        self.validations += 1
        run.reporter.emit(
            "agent_processing",
            ae.AgentProcessing(
                iteration_id=iteration_id, operation="Validating the result", has_screenshot=False
            ),
        )
        page = run.connection.session.page
        text = validation_text(
            run.params.task, answer, run.observer.last_view, page.url, await page.title()
        )
        request = ModelRequest(
            messages=(Message("user", text),), output_schema=VALIDATION_SCHEMA, role="validator"
        )
        with steps.step("automate", "validate", "browser.validate"):
            verdict = await run.caller.structured(request, iteration_id)
        quality, feedback = verdict["completion_quality"], verdict.get("feedback", "")
        validated = ae.TaskValidated(
            completion_quality=cast("ae.CompletionQuality", _QUALITY[quality]),
            final_answer=run.secrets.redact(answer),
            iteration_id=iteration_id,
            observation=verdict["observation"],
        )
        if feedback:
            validated.feedback = feedback
        run.reporter.emit("task_validated", validated)
        if quality in ACCEPTED_QUALITY:
            run.recipes.succeeded(answer, quality)
            return run.endings.success(answer, iteration_id)
        if self.validations >= validation.max_validation_attempts(run.params):
            return run.endings.failure(
                ae.AUTOMATE_ERROR_CODE_TASK_FAILED,
                f"the result was judged {quality} after {self.validations} validation attempts",
                answer,
            )
        run.conversation.add_note(
            f"A reviewer judged your answer {quality}: "
            f"{feedback or verdict['observation']} Keep working, then call done again."
        )
        return None
