"""The HTML pieces of the live stream: timeline rows, and the parts of the run page an event
changes (swapped by htmx out of band, by element id)."""

from __future__ import annotations

import json

from markupsafe import Markup

from outrider.server.console_edge import reasons
from outrider.server.console_edge.control_view import ControlView, control_view
from outrider.server.console_edge.questions import question_view
from outrider.server.console_edge.report import cited_pages, report_html
from outrider.server.console_edge.steps import StepView
from outrider.server.console_edge.templating import Pages
from outrider.server.console_edge.timeline import Row
from outrider.server.console_edge.views import RunView
from outrider.server.core.control.browsers import VIEWPORT
from outrider.server.core.events.names import event_name
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.runs.manager import RunManager
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2

_SCREENSHOTS = ("browser:screenshot_captured", "browser:screenshot_captured_image")
_ASKED = ("interactive_form_data_request", "interactive_form_data_error")
_TAKEOVERS = ("takeover_requested", "takeover_started", "takeover_ended")


class Parts:
    def __init__(self, pages: Pages, base: str, csrf: str) -> None:
        self._pages = pages
        self._base = base
        self._csrf = csrf

    def timeline(self, lines: list[Row | StepView]) -> str:
        """Timeline rows, each step's heading before its first row."""
        tagged = [("step" if isinstance(line, StepView) else "row", line) for line in lines]
        return self._pages.render("timeline_rows.html", lines=tagged, base=self._base)

    def figures(self, run: RunView) -> str:
        """The run's state, time, steps, tokens and cost (not its forms, which may be in use)."""
        return self._pages.render("run_figures.html", run=run, oob=True, base=self._base)

    def now(self, text: str) -> str:
        return self._pages.render("now.html", text=text, oob=True)

    def steps(self, steps: list[StepView], run: RunView) -> str:
        return self._pages.render("steps_table.html", steps=steps, run=run, oob=True)

    def replay(self, steps: list[StepView], run: RunView) -> str:
        frames = [step for step in steps if step.screenshot]
        return self._pages.render(
            "replay.html", frames=frames, run=run, base=self._base, viewport=VIEWPORT, oob=True
        )

    def notice(self, text: str) -> str:
        return self._pages.render("notice.html", text=text, oob=True)

    def signed_out(self, text: str) -> str:
        """The notice and the live status of a stream ended because its session did."""
        status = self._pages.render("live_status.html", state="signed-out", text=text, oob=True)
        return self.notice(text) + "\n" + status

    def summary(self, run: RunView, now: str) -> str:
        return self._pages.render(
            "run_summary.html", run=run, now=now, base=self._base, csrf=self._csrf, oob=True
        )

    def extras(
        self, event: run_event_pb2.RunEvent, runs: RunManager, principal: Principal
    ) -> list[str]:
        """What else on the page `event` changes."""
        name = event_name(event)
        html: list[str] = []
        if event.artifact:
            html.append(self._artifact(event, name))
        question = self._question(event, runs, principal)
        if question:
            html.append(question)
        if name == "complete":
            html.append(self._result(event))
        if event.WhichOneof("payload") in _TAKEOVERS:
            run = runs.get(event.run.removeprefix("runs/"), principal)
            html.append(self.controls(control_view(runs, run, principal)))
        return html

    def controls(self, control: ControlView) -> str:
        """The live view's controls as they are now (who has the browser)."""
        return self._pages.render(
            "live_controls.html", control=control, base=self._base, csrf=self._csrf, oob=True
        )

    def _artifact(self, event: run_event_pb2.RunEvent, name: str) -> str:
        run_id, _, artifact_id = event.artifact.removeprefix("runs/").partition("/artifacts/")
        return self._pages.render(
            "artifact_item.html",
            url=f"{self._base}/runs/{run_id}/artifacts/{artifact_id}",
            artifact_id=artifact_id,
            screenshot=name in _SCREENSHOTS,
            event=event,
            name=name,
        )

    def _question(
        self, event: run_event_pb2.RunEvent, runs: RunManager, principal: Principal
    ) -> str:
        arm = event.WhichOneof("payload")
        inner = event.automate.WhichOneof("event") if arm == "automate" else None
        if inner in _ASKED:
            asked = getattr(event.automate, inner or "")
            errors = dict(getattr(asked, "field_errors", {}))
            return self._asked(asked.request_id, asked.answer_url, errors, runs, principal)
        if arm == "approval_requested":
            asked = event.approval_requested
            return self._asked(asked.approval_id, asked.answer_url, {}, runs, principal)
        if arm in ("input_resolved", "approval_resolved"):
            resolved = getattr(event, arm)
            interaction_id = getattr(resolved, "request_id", "") or resolved.approval_id
            interaction = runs.interactions.get(interaction_id, principal)
            return self._render_question(question_view(interaction), "", principal, "replace")
        return ""

    def _asked(
        self,
        interaction_id: str,
        answer_url: str,
        errors: dict[str, str],
        runs: RunManager,
        principal: Principal,
    ) -> str:
        interaction = runs.interactions.get(interaction_id, principal)
        view = question_view(interaction, errors=errors)
        return self._render_question(view, answer_url, principal, "append")

    def _render_question(
        self, view: object, answer_url: str, principal: Principal, oob: str
    ) -> str:
        return self._pages.render(
            "question.html",
            question=view,
            base=self._base,
            csrf=self._csrf,
            answer_url=answer_url,
            can_answer=principal.is_admin or Scope.INTERACTIONS_ANSWER in principal.scopes,
            notice="",
            oob=oob,
        )

    def _result(self, event: run_event_pb2.RunEvent) -> str:
        if event.WhichOneof("payload") == "research":
            done = event.research.complete
            report = Markup(report_html(done.report, cited_pages(done.metadata)))  # sanitised
            return self._pages.render(
                "result.html", kind="research", report=report, answer="", success=True, error=None
            )
        done_automate = event.automate.complete
        return self._pages.render(
            "result.html",
            kind="automate",
            report="",
            answer=_readable(done_automate.final_answer),
            success=done_automate.success,
            error=_failure(done_automate.error),
        )


def _readable(answer: str) -> str:
    """A final answer as text; one that is JSON (an output schema's) indented."""
    try:
        return json.dumps(json.loads(answer), indent=2, ensure_ascii=False)
    except ValueError:
        return answer


def _failure(error: ae.AutomateFailure) -> tuple[str, str, str] | None:
    """(words, code, message) of a failed automate run's error, None without one."""
    if not error.code and not error.message:
        return None
    code = ae.AutomateErrorCode.Name(error.code).removeprefix("AUTOMATE_ERROR_CODE_")
    return reasons.words(code, error.message), code, error.message
