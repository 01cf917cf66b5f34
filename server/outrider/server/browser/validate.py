"""The validator's verdict on a run's final answer: accepted (the run succeeds), rejected with
feedback for the actor (it keeps working), or rejected once too often (the run fails)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from outrider.server.browser.prompts import VALIDATION_SCHEMA, validation_text
from outrider.server.core import validation
from outrider.server.core.events.names import by_wire_value
from outrider.server.models.base import Message, ModelRequest
from outrider.server.telemetry import steps
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_pb2

if TYPE_CHECKING:
    from outrider.server.browser.run import BrowserRun

_QUALITY = by_wire_value(ae.CompletionQuality.DESCRIPTOR)
ACCEPTED_QUALITY = frozenset({"complete", "excellent"})


class Validator:
    def __init__(self, run: BrowserRun) -> None:
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
