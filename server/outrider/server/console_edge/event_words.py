"""Events in words: what each one says happened (the timeline's label), and, for the events that
change it, what the run is doing now ("Clicking the button “Sign in” on shop.example"). Both
are read from the event's payload as the timeline has it (a dict, timeline.payload_dict); raw
names and payloads stay behind the page's toggle."""

from __future__ import annotations

from typing import Any

from outrider.server.console_edge.figures import duration, ordinal
from outrider.server.console_edge.reasons import words as reason_words
from outrider.server.console_edge.templating import shorten

# A browser tool -> (what it did, what it is doing), before the element or value.
_ACTIONS = {
    "click": ("Clicked", "Clicking"),
    "fill": ("Typed", "Typing"),
    "select": ("Chose", "Choosing"),
    "check": ("Ticked", "Ticking"),
    "uncheck": ("Unticked", "Unticking"),
    "hover": ("Pointed at", "Pointing at"),
    "focus": ("Focused", "Focusing"),
    "press": ("Pressed", "Pressing"),
    "scroll": ("Scrolled", "Scrolling"),
    "upload": ("Attached files to", "Attaching files to"),
    "goto": ("Opened", "Opening"),
    "back": ("Went back", "Going back"),
    "forward": ("Went forward", "Going forward"),
    "reload": ("Reloaded the page", "Reloading the page"),
    "wait": ("Waited", "Waiting"),
    "extract": ("Read the page for", "Reading the page for"),
    "find": ("Looked for", "Looking for"),
    "tabs": ("Switched tabs", "Switching tabs"),
    "link_url": ("Read the address of", "Reading the address of"),
    "request_input": ("Asked for", "Asking for"),
    "request_human": ("Asked for a person", "Asking for a person"),
    "done": ("Finished", "Finishing"),
    "abort": ("Gave up", "Giving up"),
}
_ROLES = {
    "textbox": "field",
    "searchbox": "search box",
    "combobox": "list",
    "listbox": "list",
    "radio": "option",
    "menuitem": "menu item",
    "spinbutton": "number field",
}
_OPERATIONS = {
    "Planning the task": "Planning the task",
    "Choosing the next action": "Choosing the next action",
    "Validating the result": "Checking its answer",
}


def label(name: str, data: dict[str, Any]) -> str:
    """What the event says happened, in a sentence; "" for bookkeeping without words."""
    said = _SAID.get(name)
    if said is not None:
        return shorten(said(data), 300)
    message = data.get("message")
    return shorten(str(message), 300) if message else ""


def doing(name: str, data: dict[str, Any], host: str) -> str:
    """What the run is doing now, if this event says ("" when it does not change that)."""
    on = f" on {host}" if host else ""
    if name == "agent:action":
        return shorten(f"{_action(data, present=True)}{on}", 200)
    if name == "agent:processing":
        operation = _OPERATIONS.get(str(data.get("operation", "")), "")
        return f"{operation}{on}" if operation else ""
    if name.endswith(":start") and data.get("message"):  # a research phase
        return shorten(str(data["message"]), 200)
    return ""


def target_words(target: dict[str, Any] | None) -> str:
    """`button "Sign in"` -> the button “Sign in”."""
    text = str((target or {}).get("label", ""))
    role, _, name = text.partition(" ")
    name = name.strip().strip('"')
    if not role:
        return ""
    noun = _ROLES.get(role, role)
    return f"the {noun} “{name}”" if name else f"a {noun}"


def _action(data: dict[str, Any], present: bool = False) -> str:
    action = str(data.get("action", ""))
    did, does = _ACTIONS.get(action, (action.replace("_", " ").capitalize(), ""))
    verb = does if present and does else did
    value = str(data.get("value", ""))
    element = target_words(data.get("target"))
    if action == "fill":
        typed = "a secret" if "[redacted]" in value else f"“{shorten(value, 60)}”"
        return f"{verb} {typed} into {element}" if element else f"{verb} {typed}"
    if action in ("goto", "find", "extract") and value:
        return f"{verb} {shorten(value, 120)}"
    if action == "press" and value:
        return f"{verb} {value}" + (f" in {element}" if element else "")
    if action == "wait" and value:
        return f"{verb} {value} s"
    if action in ("done", "abort", "request_human") and value:
        return f"{verb}: {shorten(value, 160)}"
    if action == "request_input":
        return f"{verb} information: {shorten(value, 160)}" if value else f"{verb} information"
    if action == "select" and value:
        return f"{verb} “{value}” in {element}" if element else f"{verb} “{value}”"
    return f"{verb} {element}".strip()


def _navigated(data: dict[str, Any]) -> str:
    title = data.get("title") or "a page"
    return f"Opened “{title}” ({data.get('url', '')})"


def _complete(data: dict[str, Any]) -> str:
    if data.get("report"):
        return "The report is written"
    error = data.get("error") or {}
    if not error:
        return "The run succeeded"
    code = str(error.get("code", "")).removeprefix("AUTOMATE_ERROR_CODE_")
    return f"Failed: {reason_words(code, str(error.get('message', '')))}"


def _asked(data: dict[str, Any]) -> str:
    about = data.get("form_description")
    return f"Asked for the form “{about}”" if about else "Asked for information for a form"


def _approval(data: dict[str, Any]) -> str:
    question = data.get("question") or data.get("reason") or data.get("action", "act")
    return f"Asked for approval: {question}"


def _approved(data: dict[str, Any]) -> str:
    by = f" by {data['resolved_by']}" if data.get("resolved_by") else ""
    if data.get("source") == "RESOLUTION_SOURCE_EXPIRED":
        return "Nobody approved in time: rejected"
    if data.get("decision") == "APPROVAL_DECISION_APPROVE":
        always = " for the rest of the run" if data.get("scope") == "APPROVAL_SCOPE_ALWAYS" else ""
        return f"Approved{by}{always}"
    return f"Rejected{by}" + (f": {data['reason']}" if data.get("reason") else "")


def _input_resolved(data: dict[str, Any]) -> str:
    by = f" by {data['resolved_by']}" if data.get("resolved_by") else ""
    if data.get("submitted"):
        return f"Answered{by}"
    if data.get("source") == "RESOLUTION_SOURCE_EXPIRED":
        return "Nobody answered in time"
    return f"Declined{by}"


def _takeover_asked(data: dict[str, Any]) -> str:
    if data.get("origin") == "TAKEOVER_ORIGIN_PERSON":
        return f"{data.get('requested_by', 'A person')} took the browser over"
    return f"Asked for a person: {data.get('reason', '')}".rstrip(": ")


def _takeover_ended(data: dict[str, Any]) -> str:
    who = data.get("resolved_by") or data.get("driver") or "A person"
    note = f": {data['note']}" if data.get("note") else ""
    ending = data.get("ending", "")
    if ending == "TAKEOVER_ENDING_HANDED_BACK":
        return f"{who} handed the browser back{note}"
    if ending == "TAKEOVER_ENDING_DECLINED":
        return f"{who} declined to take over{note}"
    if ending == "TAKEOVER_ENDING_RUN_ENDED":
        return "The run ended during the takeover"
    why = data.get("note") or ("no input in time" if data.get("driver") else "nobody took over")
    return f"Control came back to the agent ({why})"


def _validated(data: dict[str, Any]) -> str:
    quality = str(data.get("completion_quality", "")).removeprefix("COMPLETION_QUALITY_")
    return f"Checked its answer: {quality.lower() or 'done'}"


def _failed_action(data: dict[str, Any]) -> str:
    return f"The action failed: {data['error']}" if data.get("error") else ""


_SAID: dict[str, Any] = {
    "agent:action": _action,
    "agent:reasoned": lambda d: f"Thought: {d.get('reasoning', '')}",
    "agent:status": lambda d: str(d.get("message", "")),
    "agent:extracted": lambda d: f"Read from the page: {d.get('extracted_data', '')}",
    "agent:waiting": lambda d: f"Waited {duration(float(d.get('seconds', 0)))}",
    "browser:navigated": _navigated,
    "browser:action_completed": _failed_action,
    "task:setup": lambda d: "Set up the task",
    "task:started": lambda d: f"Planned: {d.get('plan', '')}",
    "task:validated": _validated,
    "task:validation_error": lambda d: (
        "The model's reply did not fit: " + "; ".join(d.get("errors", []))
    ),
    "task:aborted": lambda d: f"Gave up: {d.get('reason', '')}",
    "ai:generation:error": lambda d: f"A model call failed: {d.get('error', '')}",
    "error": lambda d: f"Error: {(d.get('error') or {}).get('message', '')}",
    "complete": _complete,
    "interactive:form_data:request": _asked,
    "interactive:form_data:error": lambda d: (
        "The page refused the values; " + _asked(d).replace("Asked", "asked again", 1)
    ),
    "input_resolved": _input_resolved,
    "approval_requested": _approval,
    "approval_resolved": _approved,
    "takeover_requested": _takeover_asked,
    "takeover_started": lambda d: f"{d.get('driver', 'A person')} has the browser; the agent waits",
    "takeover_ended": _takeover_ended,
    "run_queued": lambda d: f"Queued: {ordinal(int(d.get('position', 0)))} in line",
    "run_resumed": lambda d: f"Another server took the run over: {d.get('reason', '')}",
    "side_effect": lambda d: (
        f"Did something that may change data elsewhere: {d.get('description', '')}"
    ),
    "recipe_replayed": lambda d: (
        f"Replayed {d.get('steps_replayed', 0)} of {d.get('steps_total', 0)} recipe steps"
    ),
}
