"""Asking the person at the terminal for form values and approval decisions."""

from __future__ import annotations

from rich.console import Console
from rich.prompt import Confirm, Prompt

from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2


def ask_form(console: Console, request: ae.InteractiveFormDataRequest) -> dict[str, str]:
    """One prompt per field; password fields are read without echo."""
    console.print(
        f"[bold magenta]The agent asks:[/] {request.form_description or request.page_title}"
    )
    values: dict[str, str] = {}
    for field in request.fields:
        secret = field.field_type == ae.FORM_FIELD_TYPE_PASSWORD
        label = field.label or field.ref
        choices = list(field.options) or None
        value = Prompt.ask(f"  {label}", console=console, password=secret, choices=choices)
        if value or field.required:
            values[field.ref] = value
    return values


def ask_approval(console: Console, request: run_event_pb2.ApprovalRequested) -> bool:
    console.print(
        f"[bold magenta]Approval needed:[/] {request.action} {request.ref} on {request.url}"
        f"\n  why: {request.reason}"
    )
    return Confirm.ask("  Allow it?", console=console, default=False)
