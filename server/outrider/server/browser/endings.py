"""How a browser run ends, in the seed's terminal shape: task:completed or task:aborted, then
task:metrics, complete (success, final answer, stats, error code) and done. A run that saves its
profile at its end holds the last three back (`hold`) until the save is reported, so that
profile_saved comes before complete and done."""

from __future__ import annotations

from outrider.server.browser.reporting import Reporter
from outrider.server.browser.secrets import Secrets
from outrider.server.core.clock import epoch_ms, now_us
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_pb2


class Endings:
    def __init__(self, reporter: Reporter, secrets: Secrets, started_us: int) -> None:
        self.reporter = reporter
        self.secrets = secrets
        self.started_us = started_us
        self.hold = False  # keep task:metrics, complete and done back until `release`
        self._held: list[tuple[ae.AutomateComplete, str]] = []

    def stats(self) -> ae.AutomateStats:
        end = now_us()
        return ae.AutomateStats(
            actions=self.reporter.tally.actions,
            iterations=self.reporter.tally.steps,
            start_time=epoch_ms(self.started_us),
            end_time=epoch_ms(end),
            duration_ms=(end - self.started_us) / 1000,
        )

    def _finish(self, complete: ae.AutomateComplete, iteration_id: str) -> None:
        if self.hold:
            self._held.append((complete, iteration_id))
            return
        self.reporter.metrics(iteration_id, final=True)
        complete.stats.CopyFrom(self.stats())
        self.reporter.emit("complete", complete)
        self.reporter.emit("done", ae.AutomateDone())

    def release(self) -> None:
        """Emits what `hold` kept back."""
        self.hold = False
        held, self._held = self._held, []
        for complete, iteration_id in held:
            self._finish(complete, iteration_id)

    def success(self, answer: str, iteration_id: str) -> run_pb2.RunOutcome:
        answer = self.secrets.redact(answer)
        self.reporter.emit(
            "task_completed",
            ae.TaskCompleted(iteration_id=iteration_id, final_answer=answer, success=True),
        )
        self._finish(ae.AutomateComplete(success=True, final_answer=answer), iteration_id)
        return run_pb2.RunOutcome(success=True, result=answer)

    def failure(
        self,
        code: ae.AutomateErrorCode,
        message: str,
        answer: str = "",
        iteration_id: str = "end",
        reason: str = "",
    ) -> run_pb2.RunOutcome:
        """`reason`: the outcome's error code when it is ours, not Tabstack's (`code` is then
        what the Tabstack events say)."""
        completed = ae.TaskCompleted(iteration_id=iteration_id, success=False)
        complete = ae.AutomateComplete(
            success=False, error=ae.AutomateFailure(code=code, message=message)
        )
        if answer:
            completed.final_answer = complete.final_answer = self.secrets.redact(answer)
        self.reporter.emit("task_completed", completed)
        self._finish(complete, iteration_id)
        name = reason or ae.AutomateErrorCode.Name(code).removeprefix("AUTOMATE_ERROR_CODE_")
        return run_pb2.RunOutcome(
            success=False, error_code=name, error_message=message, result=complete.final_answer
        )

    def aborted(self, reason: str, iteration_id: str) -> run_pb2.RunOutcome:
        self.reporter.emit(
            "task_aborted",
            ae.TaskAborted(iteration_id=iteration_id, reason=reason, final_answer=""),
        )
        complete = ae.AutomateComplete(
            success=False,
            error=ae.AutomateFailure(
                code=ae.AUTOMATE_ERROR_CODE_TASK_ABORTED, message=f"the agent aborted: {reason}"
            ),
        )
        self._finish(complete, iteration_id)
        return run_pb2.RunOutcome(success=False, error_code="TASK_ABORTED", error_message=reason)
