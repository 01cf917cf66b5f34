"""Asking the person at the terminal for form values and approval decisions (blocking; asking.py
runs these in a thread)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from rich.console import Console
from rich.markup import escape
from rich.prompt import Confirm, Prompt

from outrider.client.wording import approval_question, field_name, form_question
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2


class QuestionClosed(Exception):
    """The question closed (expired, or the run ended) while its prompt was open."""


def _check(closed: threading.Event | None) -> None:
    if closed is not None and closed.is_set():
        raise QuestionClosed


def ask_form(
    console: Console,
    request: ae.InteractiveFormDataRequest,
    errors: dict[str, str],
    closed: threading.Event | None = None,
) -> dict[str, str] | None:
    """Values by field ref, or None when the person declines. Passwords are read without echo;
    a re-request (errors from the page) shows what was wrong before asking again. Raises
    QuestionClosed at the next line typed once `closed` is set."""
    if errors:
        console.print("[bold red]The page did not accept those values:[/]")
        for field in request.fields:
            if field.ref in errors:
                console.print(f"  {field_name(field)}: {errors[field.ref]}")
        console.print("[bold magenta]Please enter them again.[/]")
    else:
        console.print(f"[bold magenta]{escape(form_question(request))}[/]")
        page = request.page_title or request.page_url
        console.print(f"  [dim]On the page {escape(page)} ({escape(request.page_url)})[/]")
        console.print("  [dim]Leave a required field empty to decline.[/]")
    values: dict[str, str] = {}
    for field in request.fields:
        value = _ask_field(console, field, closed)
        if value is None:
            return None
        if value or field.required:
            values[field.ref] = value
    return values


def _ask_field(console: Console, field: ae.FormField, closed: threading.Event | None) -> str | None:
    secret = field.field_type == ae.FORM_FIELD_TYPE_PASSWORD
    label = field_name(field) + (" (hidden as you type)" if secret else "")
    choices = list(field.options) or None
    while True:
        value = Prompt.ask(f"  {label}", console=console, password=secret, choices=choices)
        _check(closed)
        if value or not field.required:
            return value
        declined = Confirm.ask("  Decline the agent's request?", console=console, default=False)
        _check(closed)
        if declined:
            return None


def ask_approval(
    console: Console,
    request: run_event_pb2.ApprovalRequested,
    closed: threading.Event | None = None,
) -> bool:
    console.print(
        f"[bold magenta]Approval needed:[/] {escape(approval_question(request))}"
        f"\n  [dim]page: {escape(request.url)}[/]{_deadline(request)}"
    )
    allow = Confirm.ask("  Allow it?", console=console, default=False)
    _check(closed)
    return allow


def _deadline(request: run_event_pb2.ApprovalRequested) -> str:
    if not request.HasField("expire_time"):
        return ""
    seconds = (request.expire_time.ToDatetime(UTC) - datetime.now(UTC)).total_seconds()
    return f"\n  [dim](answer within {max(0, round(seconds))} s, or it counts as a refusal)[/]"
