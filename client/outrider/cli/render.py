"""How events look at a terminal, or as one JSON object per line with --json."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from rich.console import Console
from rich.markdown import Markdown
from rich.panel import Panel
from rich.table import Table

from outrider.client import event_name, payload
from outrider.v1 import research_events_pb2, run_event_pb2, run_pb2

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


class Renderer:
    """Prints each event: a line for people, or a JSON object for scripts."""

    def __init__(self, console: Console, as_json: bool) -> None:
        self.console = console
        self.as_json = as_json

    def event(self, event: run_event_pb2.RunEvent) -> None:
        if self.as_json:
            data = json_format.MessageToDict(event)
            print(json.dumps({"event": event_name(event), **data}), flush=True)
            return
        line = self._line(event)
        if line:
            self.console.print(f"[dim]{event.sequence:>4}[/] {line}")
        if event.research.HasField("complete"):
            self.report(event.research.complete)

    def _line(self, event: run_event_pb2.RunEvent) -> str:
        name, inner = event_name(event), payload(event)
        if name in _AUTOMATE_LINES and inner is not None:
            return str(_AUTOMATE_LINES[name](inner))
        if name == "complete" and event.HasField("automate"):
            done = event.automate.complete
            colour = "green" if done.success else "red"
            return f"[bold {colour}]answer:[/] {done.final_answer or done.error.message}"
        if name == "approval_requested":
            ask = event.approval_requested
            return f"[magenta]approval needed[/] {ask.action} {ask.url}: {ask.reason}"
        if event.HasField("research") and name not in ("complete", ""):
            message = getattr(inner, "message", "")
            return f"[cyan]{name}[/] {message}".rstrip()
        if name in ("error", "task:aborted"):
            return f"[bold red]{name}[/] {json_format.MessageToJson(inner or event, indent=None)}"
        return ""

    def report(self, complete: research_events_pb2.ResearchComplete) -> None:
        self.console.print(Panel(Markdown(complete.report), title="Report"))
        pages = complete.metadata.cited_pages
        if pages:
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
        table = Table("kind", "state")
        table.add_column("created", no_wrap=True, min_width=19)
        table.add_column("events")
        table.add_column("run", no_wrap=True, min_width=29)
        for run in runs:
            table.add_row(
                run_pb2.RunKind.Name(run.kind).removeprefix("RUN_KIND_").lower(),
                run_pb2.RunState.Name(run.state).removeprefix("RUN_STATE_").lower(),
                run.create_time.ToDatetime().isoformat(timespec="seconds"),
                str(run.last_sequence),
                run.name,
            )
        self.console.print(table)

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
