"""A run's events folded into its A2A task, one event at a time: each event gives the stream
updates it makes (none for most), and `task()` is the task as of the last event. Streams,
`tasks/get` and the answer to `message/send` are all built by this one fold, so they agree.

States: queued → submitted; the agent at work → working (one status update per event worth
telling, see progress.py); a form-data request or approval → input-required, until its
resolution; the end → completed (with the answer or report as an artifact), failed or canceled.
Every status message also goes into the history, as the SDK's own task manager does.
"""

from __future__ import annotations

from typing import Any, Protocol

from a2a.types import a2a_pb2 as a2a
from google.protobuf import json_format

from outrider.server.a2a_edge.outputs import (
    answer_artifact,
    report_artifact,
    screenshot_artifact,
)
from outrider.server.a2a_edge.parts import (
    MESSAGE_LABEL,
    TaskRef,
    agent_message,
    data_part,
    event_message_id,
    text_part,
)
from outrider.server.a2a_edge.progress import progress_line
from outrider.server.a2a_edge.questions import approval_parts, form_parts
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2, run_pb2

Update = a2a.TaskStatusUpdateEvent | a2a.TaskArtifactUpdateEvent
TERMINAL = frozenset(
    {
        a2a.TASK_STATE_COMPLETED,
        a2a.TASK_STATE_FAILED,
        a2a.TASK_STATE_CANCELED,
        a2a.TASK_STATE_REJECTED,
    }
)
STATE_OF_RUN = {
    run_pb2.RUN_STATE_QUEUED: a2a.TASK_STATE_SUBMITTED,
    run_pb2.RUN_STATE_RUNNING: a2a.TASK_STATE_WORKING,
    run_pb2.RUN_STATE_INPUT_REQUIRED: a2a.TASK_STATE_INPUT_REQUIRED,
    run_pb2.RUN_STATE_APPROVAL_REQUIRED: a2a.TASK_STATE_INPUT_REQUIRED,
    run_pb2.RUN_STATE_SUCCEEDED: a2a.TASK_STATE_COMPLETED,
    run_pb2.RUN_STATE_FAILED: a2a.TASK_STATE_FAILED,
    run_pb2.RUN_STATE_CANCELLED: a2a.TASK_STATE_CANCELED,
}
_FORM_EVENTS = ("interactive_form_data_request", "interactive_form_data_error")


class Links(Protocol):
    """Where the caller reads what a task links to."""

    def artifact_url(self, artifact_name: str) -> str:
        """The URL of a run's artifact ("runs/{run}/artifacts/{id}")."""

    def answer_url(self, interaction_id: str) -> str | None:
        """The one-time answer link of a pending interaction, when the caller may have it."""


class TaskTracker:
    def __init__(self, run: run_pb2.Run, links: Links) -> None:
        self.ref = TaskRef.of(run)
        self.state: int = a2a.TASK_STATE_SUBMITTED
        self.pending = ""  # the interaction the task waits on, while input-required
        self._links = links
        self._message: a2a.Message | None = None
        self._time = run.create_time
        self._history = [request_message(run, self.ref)]
        self._artifacts: dict[str, a2a.Artifact] = {}
        self._shots = 0

    @property
    def ended(self) -> bool:
        return self.state in TERMINAL

    def task(self, run: run_pb2.Run | None = None) -> a2a.Task:
        """The task now; an ended `run`'s own state wins over what its events suggest."""
        state, message = self.state, self._message
        if run is not None and run.HasField("end_time") and run.state in STATE_OF_RUN:
            state = STATE_OF_RUN[run.state]
            if message is None or self.state != state:
                message = self._ending_message(run)
        status = a2a.TaskStatus(state=state, timestamp=self._time)  # type: ignore[arg-type]
        if message is not None:
            status.message.CopyFrom(message)
        return a2a.Task(
            id=self.ref.task_id,
            context_id=self.ref.context_id,
            status=status,
            artifacts=list(self._artifacts.values()),
            history=self._history,
        )

    def apply(self, event: run_event_pb2.RunEvent) -> list[Update]:
        """Folds `event` in; returns the updates a stream sends for it."""
        if self.ended:
            return []
        arm = event.WhichOneof("payload")
        if arm == "automate":
            return self._automate(event)
        if arm == "research":
            return self._research(event)
        if arm == "approval_requested":
            request = event.approval_requested
            return self._ask(event, request.approval_id, approval_parts(request))
        if arm in ("input_resolved", "approval_resolved"):
            return self._resolved(event)
        if arm == "run_queued":
            return self._told(event, a2a.TASK_STATE_SUBMITTED)
        return self._told(event, a2a.TASK_STATE_WORKING)

    # the kinds of events

    def _automate(self, event: run_event_pb2.RunEvent) -> list[Update]:
        inner = event.automate.WhichOneof("event")
        if inner in _FORM_EVENTS:
            request = getattr(event.automate, inner)
            link = self._links.answer_url(request.request_id)
            return self._ask(event, request.request_id, form_parts(request, link))
        if inner == "browser_screenshot_captured" and event.artifact:
            return self._screenshot(event)
        if inner == "complete":
            return self._automate_end(event, event.automate.complete)
        return self._told(event, a2a.TASK_STATE_WORKING)

    def _research(self, event: run_event_pb2.RunEvent) -> list[Update]:
        inner = event.research.WhichOneof("event")
        if inner == "complete":
            complete = event.research.complete
            updates = self._artifact(report_artifact(complete))
            text = complete.message or "Research complete"
            return updates + self._status(event, a2a.TASK_STATE_COMPLETED, [text_part(text)])
        if inner == "error":
            error = event.research.error
            state = _ended_by_cancel(error.error.name == "CANCELLED")
            text = error.error.message or error.message or "The research failed"
            return self._status(event, state, [text_part(text)])
        return self._told(event, a2a.TASK_STATE_WORKING)

    def _automate_end(
        self, event: run_event_pb2.RunEvent, complete: ae.AutomateComplete
    ) -> list[Update]:
        if complete.success:
            answer = complete.final_answer if complete.HasField("final_answer") else ""
            updates = self._artifact(answer_artifact(answer)) if answer else []
            done = [text_part(answer or "Done.")]
            return updates + self._status(event, a2a.TASK_STATE_COMPLETED, done)
        failure = complete.error
        cancelled = failure.code == ae.AUTOMATE_ERROR_CODE_TASK_ABORTED and (
            failure.message.startswith("cancelled")
        )
        text = failure.message or "The run failed"
        return self._status(event, _ended_by_cancel(cancelled), [text_part(text)])

    def _ask(
        self, event: run_event_pb2.RunEvent, interaction_id: str, parts: list[a2a.Part]
    ) -> list[Update]:
        self.pending = interaction_id
        return self._status(event, a2a.TASK_STATE_INPUT_REQUIRED, parts)

    def _resolved(self, event: run_event_pb2.RunEvent) -> list[Update]:
        self.pending = ""
        resolution: run_event_pb2.InputResolved | run_event_pb2.ApprovalResolved = (
            event.input_resolved if event.HasField("input_resolved") else event.approval_resolved
        )
        if resolution.source == run_event_pb2.RESOLUTION_SOURCE_RUN_ENDED:
            return []  # the ending follows
        return self._status(event, a2a.TASK_STATE_WORKING, [text_part(_resolved_text(resolution))])

    def _told(self, event: run_event_pb2.RunEvent, state: int) -> list[Update]:
        line = progress_line(event)
        if line is None or self.pending:
            return []
        return self._status(event, state, [text_part(line)])

    def _screenshot(self, event: run_event_pb2.RunEvent) -> list[Update]:
        self._shots += 1
        shot = event.automate.browser_screenshot_captured
        url = self._links.artifact_url(event.artifact)
        return self._artifact(screenshot_artifact(event.artifact, shot, url, self._shots))

    # updates

    def _status(
        self, event: run_event_pb2.RunEvent, state: int, parts: list[a2a.Part]
    ) -> list[Update]:
        if self._message is not None:
            self._history.append(self._message)
        self.state = state
        self._time = event.time
        self._message = agent_message(self.ref, event_message_id(self.ref, event.sequence), parts)
        status = a2a.TaskStatus(state=state, message=self._message, timestamp=event.time)  # type: ignore[arg-type]
        ref = self.ref
        return [
            a2a.TaskStatusUpdateEvent(task_id=ref.task_id, context_id=ref.context_id, status=status)
        ]

    def _artifact(self, artifact: a2a.Artifact) -> list[Update]:
        self._artifacts[artifact.artifact_id] = artifact
        ref = self.ref
        return [
            a2a.TaskArtifactUpdateEvent(
                task_id=ref.task_id, context_id=ref.context_id, artifact=artifact, last_chunk=True
            )
        ]

    def _ending_message(self, run: run_pb2.Run) -> a2a.Message:
        outcome = run.outcome
        text = outcome.result if outcome.success else outcome.error_message
        parts = [text_part(text or run_pb2.RunState.Name(run.state))]
        return agent_message(self.ref, event_message_id(self.ref, run.last_sequence), parts)


def request_message(run: run_pb2.Run, ref: TaskRef) -> a2a.Message:
    """The message that started the task, as the run keeps it (secret data values redacted):
    its text, and the other parameters as a data part."""
    if run.HasField("research"):
        skill, text = "research", run.research.query
        params: dict[str, Any] = json_format.MessageToDict(run.research)
        params.pop("query", None)
    else:
        skill, text = "browse", run.automate.task
        params = json_format.MessageToDict(run.automate)
        params.pop("task", None)
    message_id = run.labels.get(MESSAGE_LABEL) or f"{ref.task_id}-request"
    return a2a.Message(
        message_id=message_id,
        task_id=ref.task_id,
        context_id=ref.context_id,
        role=a2a.ROLE_USER,
        parts=[text_part(text), data_part({"skill": skill, **params})],
    )


def _ended_by_cancel(cancelled: bool) -> int:
    return a2a.TASK_STATE_CANCELED if cancelled else a2a.TASK_STATE_FAILED


def _resolved_text(
    resolution: run_event_pb2.InputResolved | run_event_pb2.ApprovalResolved,
) -> str:
    if resolution.source == run_event_pb2.RESOLUTION_SOURCE_EXPIRED:
        return "The question expired unanswered; the agent goes on without it"
    if isinstance(resolution, run_event_pb2.InputResolved):
        done = "Answered" if resolution.submitted else "Declined"
    elif resolution.decision == run_event_pb2.APPROVAL_DECISION_APPROVE:
        done = "Approved"
    else:
        done = f"Rejected ({resolution.reason})" if resolution.reason else "Rejected"
    return f"{done} by {resolution.resolved_by}" if resolution.resolved_by else done
