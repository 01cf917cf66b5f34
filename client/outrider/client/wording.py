"""How a run's questions read to a person, the same on every door (the console, MCP, A2A, the
CLI): what the agent needs or wants to do, on which site, in plain words. No element refs and no
setting names: those stay in the requests' own fields, for programs."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2

FormRequest = ae.InteractiveFormDataRequest | ae.InteractiveFormDataError


def host(url: str) -> str:
    return urlsplit(url).hostname or url or "the page"


def field_name(field: ae.FormField) -> str:
    return field.label or "an unnamed field"


def listed(names: Iterable[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    items = list(names)
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def form_question(request: FormRequest, fields: Iterable[ae.FormField] | None = None) -> str:
    """E.g. "The agent needs Email and Password for “Sign in” on bank.example." (`fields`: the
    ones asked here, by default all)."""
    names = listed(field_name(f) for f in (request.fields if fields is None else fields))
    what = f" for “{request.form_description}”" if request.form_description else ""
    where = f" on {host(request.page_url)}" if request.page_url else ""
    return f"The agent needs {names}{what}{where}."


def approval_question(request: run_event_pb2.ApprovalRequested) -> str:
    """The agent's own words for the approval (`question`), or, in events from servers that
    predate them, its action, site and reason."""
    if request.question:
        return request.question
    action = (request.action or "act").capitalize()
    return f"{action} on {host(request.url)} — {request.reason}".rstrip(" —")


def approve_always_label(request: run_event_pb2.ApprovalRequested) -> str:
    return f"Allow such actions on {host(request.url)} for the rest of this run"
