"""How events look at a terminal, or as one JSON object per line with --json."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message
from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape
from rich.panel import Panel

from outrider.cli.steps import StepLines
from outrider.client import RPCError, event_name, payload
from outrider.client.wording import approval_question
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import browser_control_pb2, research_events_pb2, run_event_pb2, run_pb2

_AUTOMATE_LINES: dict[str, Callable[[Any], str]] = {
    "task:setup": lambda p: f"[bold]task[/] {p.task}",
    "task:started": lambda p: "[bold]started[/]",
    "task:validated": lambda p: "[green]validated[/]",
    "agent:step": lambda p: f"[bold cyan]step {p.current_iteration}[/]",
    "agent:reasoned": lambda p: f"[dim]thinking:[/] {p.reasoning}",
    "agent:action": lambda p: f"[yellow]action[/] {p.action} {p.ref} {p.value}".rstrip(),
    "browser:navigated": lambda p: f"[blue]navigated[/] {p.url} [dim]{p.title}[/]",
    "agent:status": lambda p: f"[dim]status:[/] {p.message}",
    "task:completed": lambda p: f"[bold green]completed[/] {p.final_answer}",
}


_PEOPLE_EVENTS = frozenset({"takeover_requested", "takeover_ended"})


class Renderer:
    """Prints each event: one line per step for people (every event's line with `verbose`), or a
    JSON object per line for scripts."""

    def __init__(self, console: Console, as_json: bool, verbose: bool = False) -> None:
        self.console = console
        self.as_json = as_json
        self.verbose = verbose
        self.steps = StepLines(console.width)
        self.ending: ae.AutomateComplete | None = None  # shown by `finish`, with the run's state

    def event(self, event: run_event_pb2.RunEvent) -> None:
        if self.as_json:
            data = json_format.MessageToDict(event)
            print(json.dumps({"event": event_name(event), **data}), flush=True)
            return
        if event.HasField("automate") and event.automate.HasField("complete"):
            self.ending = event.automate.complete
        elif _PEOPLE_EVENTS & {event.WhichOneof("payload")} and (line := self._line(event)):
            self.console.print(line)  # someone must act, or has: shown without --verbose too
        elif self.verbose:
            if verbose_line := self._line(event):
                self.console.print(f"[dim]{event.sequence:>4}[/] {verbose_line}")
        elif step_line := self.steps.line(event):
            self.console.print(step_line)
        if event.research.HasField("complete"):
            self.report(event.research.complete)

    def finish(self, state: int | None) -> None:
        """The automate run's outcome line, once its final state is known (None: unknown): a
        cancelled run's `complete` reads like an aborted task, so the state tells them apart."""
        if self.ending is not None and not self.as_json:
            self.console.print(outcome_line(self.ending, state))
        self.ending = None

    def error(self, error: RPCError) -> None:
        """A refused call: a JSON object with --json (stdout stays JSON), else a red line."""
        if self.as_json:
            body: dict[str, Any] = {
                "status": error.status,
                "reason": error.reason,
                "message": error.message,
            }
            if error.violations:
                body["violations"] = error.violations
            print(json.dumps({"error": body}), flush=True)
            return
        self.console.print(f"[bold red]error:[/] {error}")
        for field, problem in error.violations.items():
            self.console.print(f"  {field}: {problem}")

    def _line(self, event: run_event_pb2.RunEvent) -> str:
        name, inner = event_name(event), payload(event)
        if name in _AUTOMATE_LINES and inner is not None:
            return str(_AUTOMATE_LINES[name](inner))
        if name == "approval_requested":
            ask = event.approval_requested
            return f"[magenta]approval needed[/] {escape(approval_question(ask))}"
        if name == "takeover_requested" and event.takeover_requested.reason:
            person = event.takeover_requested
            return (
                f"[magenta]a person is needed[/] at {person.url}: {person.reason} (take over the "
                f"browser in the console, or BrowserControlService.TakeOver {event.run})"
            )
        if name == "takeover_ended":
            ending = browser_control_pb2.TakeoverEnding.Name(event.takeover_ended.ending)
            return f"[magenta]takeover ended[/] {ending.removeprefix('TAKEOVER_ENDING_').lower()}"
        if event.HasField("research") and name not in ("complete", ""):
            message = getattr(inner, "message", "")
            return f"[cyan]{name}[/] {message}".rstrip()
        if name in ("error", "task:aborted"):
            return f"[bold red]{name}[/] {json_format.MessageToJson(inner or event, indent=None)}"
        return ""

    def report(self, complete: research_events_pb2.ResearchComplete) -> None:
        self.console.print(Panel(Markdown(complete.report), title="Report"))
        pages = complete.metadata.cited_pages
        # The report usually lists its sources itself; list them here only when it does not.
        if pages and not all(page.url in complete.report for page in pages):
            self.console.print("[bold]Sources[/]")
            for index, page in enumerate(pages, 1):
                self.console.print(f"  [{index}] {page.title or page.url} {page.url}")

    def screenshot(self, path: Path) -> None:
        if not self.as_json:
            self.console.print(f"     [dim]screenshot saved to {path}[/]")

    def runs(self, runs: list[run_pb2.Run]) -> None:
        if self.as_json:
            for run in runs:
                print(json.dumps(json_format.MessageToDict(run)), flush=True)
            return
        self._columns(RUN_COLUMNS, [_run_row(run) for run in runs])

    def items(
        self, messages: Sequence[Message], header: tuple[str, ...], rows: list[tuple[str, ...]]
    ) -> None:
        """Messages as JSON lines (--json), else their `rows` in columns under `header`."""
        if self.as_json:
            for message in messages:
                print(json.dumps(json_format.MessageToDict(message)), flush=True)
            return
        self._columns(header, rows)

    def _columns(self, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
        """Plain columns two spaces apart, as `ps` and `kubectl get` print them: every value
        whole, whatever the width (a table squeezed to a pipe's 80 columns cut ids)."""
        widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
        for row in (header, *rows):
            line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
            self.console.print(line.rstrip(), markup=False, highlight=False, soft_wrap=True)

    def deleted(self, run: run_pb2.Run, freed_bytes: int) -> None:
        if self.as_json:
            print(json.dumps({"deleted": run.name, "freedArtifactBytes": freed_bytes}), flush=True)
            return
        self.console.print(f"deleted {run.name} ({freed_bytes} bytes of artifacts freed)")

    def run(self, run: run_pb2.Run) -> None:
        if self.as_json:
            print(json.dumps(json_format.MessageToDict(run)), flush=True)
            return
        self.console.print(json_format.MessageToJson(run, indent=2))


RUN_COLUMNS = ("kind", "state", "created", "events", "run")


def _run_row(run: run_pb2.Run) -> tuple[str, ...]:
    return (
        run_pb2.RunKind.Name(run.kind).removeprefix("RUN_KIND_").lower(),
        run_pb2.RunState.Name(run.state).removeprefix("RUN_STATE_").lower(),
        run.create_time.ToDatetime().isoformat(timespec="seconds") + "Z",  # UTC
        str(run.last_sequence),
        run.name,
    )


def outcome_line(complete: ae.AutomateComplete, state: int | None = None) -> str:
    """How an automate run ended: its answer, its cancellation, or (never labelled an answer)
    its failure."""
    if complete.success:
        return f"[bold green]✓ answer:[/] {complete.final_answer}"
    why = complete.error.message or complete.final_answer or "no reason given"
    if state == run_pb2.RUN_STATE_CANCELLED:
        return f"[bold yellow]⊘ {why}[/]" if why.startswith("cancelled") else f"⊘ cancelled: {why}"
    code = ae.AutomateErrorCode.Name(complete.error.code).removeprefix("AUTOMATE_ERROR_CODE_")
    return f"[bold red]✗ failed ({code.lower().replace('_', ' ')}):[/] {why}"
