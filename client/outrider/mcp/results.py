"""Tool results: structured content matching the tools' output schemas, a text the model reads,
and the research sources as resource links."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp import types
from outrider.client.wording import approval_question, form_question, host
from outrider.mcp.errors import Refused
from outrider.mcp.questions import Question
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import research_events_pb2 as rv
from outrider.v1 import run_event_pb2, run_pb2, session_pb2

_TASK_CHARS = 200
PICK_UP = (
    "if this call ends early (a client's timeout), the run goes on: get_run with wait=true "
    "picks it up"
)
GOES_ON = (
    "The run goes on: get_run with wait=true follows it to its end and asks its questions; "
    "cancel_run stops it."
)


@dataclass
class Seen:
    """What a watch keeps of a run's events for its result."""

    automate: ae.AutomateComplete | None = None
    research: rv.ResearchComplete | None = None
    screenshots: list[str] = field(default_factory=list)

    def see(self, event: run_event_pb2.RunEvent) -> None:
        if event.HasField("automate") and event.automate.HasField("complete"):
            self.automate = event.automate.complete
        elif event.HasField("research") and event.research.HasField("complete"):
            self.research = event.research.complete
        elif event.artifact and event.automate.WhichOneof("event") in (
            "browser_screenshot_captured",
            "browser_screenshot_captured_image",
        ):
            self.screenshots.append(event.artifact)


def state_name(state: int) -> str:
    return run_pb2.RunState.Name(state).removeprefix("RUN_STATE_").lower()


def kind_name(kind: int) -> str:
    return run_pb2.RunKind.Name(kind).removeprefix("RUN_KIND_").lower()


def run_result(
    run: run_pb2.Run,
    seen: Seen,
    notes: list[str],
    pending: list[Question] | None = None,
) -> types.CallToolResult:
    content: dict[str, Any] = {
        "run": run.name,
        "kind": kind_name(run.kind),
        "state": state_name(run.state),
    }
    ended = run.HasField("outcome")
    if ended:
        content |= _outcome(run, seen)
    else:
        notes = [*notes, GOES_ON]
    if pending:
        content["pending_questions"] = [_pending(q) for q in pending]
    if seen.screenshots:
        content["screenshots"] = list(seen.screenshots)
    if notes:
        content["notes"] = list(notes)
    blocks: list[types.ContentBlock] = [types.TextContent(text=_text(content))]
    blocks += [_link(source) for source in content.get("sources", [])]
    # a failed or cancelled run is an error the host's model sees without reading `state`
    failed = ended and not run.outcome.success
    return types.CallToolResult(content=blocks, structured_content=content, is_error=failed)


def _outcome(run: run_pb2.Run, seen: Seen) -> dict[str, Any]:
    outcome = run.outcome
    found: dict[str, Any] = {"success": outcome.success}
    if not outcome.success:
        found["error"] = {"code": outcome.error_code, "message": outcome.error_message}
    if run.kind == run_pb2.RUN_KIND_AUTOMATE:
        answer = outcome.result or (seen.automate.final_answer if seen.automate else "")
        if answer:
            found["final_answer"] = answer
        return found
    report = seen.research.report if seen.research else outcome.result
    if report:
        found["report"] = report
    if seen.research is not None:
        pages = seen.research.metadata.cited_pages
        found["citations"] = [_citation(page) for page in pages]
        found["sources"] = [{"url": p.url, "title": p.title or host(p.url)} for p in pages]
    return found


def _citation(page: rv.CitedPage) -> dict[str, Any]:
    cited = {"id": page.id, "url": page.url, "claims": list(page.claims)}
    if page.HasField("title"):
        cited["title"] = page.title
    return cited


def _pending(question: Question) -> dict[str, str]:
    if question.approval is not None:
        summary, kind = approval_question(question.approval), "approval"
    else:
        assert question.form is not None
        summary, kind = form_question(question.form), "form_data"
    return {"interaction": question.interaction, "kind": kind, "summary": summary}


def _link(source: dict[str, str]) -> types.ResourceLink:
    return types.ResourceLink(name=source["title"], uri=source["url"], mime_type="text/html")


def _text(content: dict[str, Any]) -> str:
    head = f"Run {content['run']} ({content['kind']}): {content['state']}."
    lines = [head]
    if "final_answer" in content:
        lines.append(f"Answer: {content['final_answer']}")
    if "error" in content:
        lines.append(f"Error {content['error']['code']}: {content['error']['message']}")
    if "report" in content:
        lines.append(content["report"])
    for index, source in enumerate(content.get("sources", []), start=1):
        if source["url"] not in content.get("report", ""):  # reports list their sources
            lines.append(f"[{index}] {source['title']}: {source['url']}")
    for question in content.get("pending_questions", []):
        lines.append(f"Waiting for an answer ({question['interaction']}): {question['summary']}")
    if content.get("screenshots"):
        lines.append(f"Screenshots (read_artifact): {', '.join(content['screenshots'][-3:])}")
    lines += content.get("notes", [])
    return "\n".join(lines)


def run_list(runs: list[run_pb2.Run], token: str) -> types.CallToolResult:
    items = [_summary(run) for run in runs]
    lines = [f"{i['run']} {i['kind']} {i['state']}: {i['task']}" for i in items] or ["No runs."]
    if token:
        lines.append(f"More: page_token={token}")
    return types.CallToolResult(
        content=[types.TextContent(text="\n".join(lines))],
        structured_content={"runs": items, "next_page_token": token},
    )


def _summary(run: run_pb2.Run) -> dict[str, Any]:
    task = run.automate.task if run.HasField("automate") else run.research.query
    summary: dict[str, Any] = {
        "run": run.name,
        "kind": kind_name(run.kind),
        "state": state_name(run.state),
        "task": task if len(task) <= _TASK_CHARS else task[: _TASK_CHARS - 1] + "…",
        "create_time": run.create_time.ToJsonString(),
    }
    if run.HasField("outcome"):
        summary["success"] = run.outcome.success
    return summary


def session_result(session: session_pb2.Session) -> types.CallToolResult:
    state = session_pb2.SessionState.Name(session.state).removeprefix("SESSION_STATE_").lower()
    shown: dict[str, Any] = {
        "session": session.name,
        "kind": kind_name(session.kind),
        "state": state,
        "current_url": session.current_url,
        "run_count": session.run_count,
        "expire_time": session.expire_time.ToJsonString(),
    }
    if session.profile:
        shown["profile"] = session.profile
    if session.end_reason:
        shown["end_reason"] = session_pb2.SessionEndReason.Name(session.end_reason).replace(
            "SESSION_END_REASON_", "SESSION_"
        )
    where = f" on {session.current_url}" if session.current_url else ""
    text = f"{session.name} ({shown['kind']}) is {state}{where}."
    if state != "ended":
        text += f' Pass session="{session.name}" to run in it.'
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=shown)


def refusal(error: Refused) -> types.CallToolResult:
    """A refused call as a tool error the model reads (and may correct its arguments after)."""
    return types.CallToolResult(
        content=[types.TextContent(text=f"Refused: {error.describe()}")], is_error=True
    )
