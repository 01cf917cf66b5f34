"""The tools the browser agent's model may call, with their argument schemas and checks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from outrider.server.models.base import ToolCall, ToolSpec
from outrider.server.models.schema import schema_errors
from outrider.server.models.wire import INVALID_ARGUMENTS

# No description: the system rules say what a ref is ("element refs like E12"), and the same
# sentence on each of the ten tools that take one cost about 200 tokens on every request.
_REF = {"type": "string"}


def _spec(name: str, description: str, properties: dict[str, Any], required: list[str]) -> ToolSpec:
    schema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    return ToolSpec(name, description, schema)


_COMMON = [
    _spec("click", "Click an element.", {"ref": _REF}, ["ref"]),
    _spec(
        "fill",
        "Replace the text of a field (input, textarea, or a combobox you type into; date fields "
        "take YYYY-MM-DD). Use {{secret:...}} placeholders as given.",
        {"ref": _REF, "value": {"type": "string"}},
        ["ref", "value"],
    ),
    _spec(
        "select",
        "Choose options of a select list (shown as `select` with its options) by their labels. "
        "Not for a `combobox`: fill it with text, then click one of the options it shows.",
        {"ref": _REF, "values": {"type": "array", "items": {"type": "string"}}},
        ["ref", "values"],
    ),
    _spec("check", "Tick a checkbox or choose a radio button.", {"ref": _REF}, ["ref"]),
    _spec("uncheck", "Untick a checkbox.", {"ref": _REF}, ["ref"]),
    _spec("hover", "Move the mouse over an element.", {"ref": _REF}, ["ref"]),
    _spec(
        "link_url",
        "Tell the URL a link points to (the snapshot leaves link targets out).",
        {"ref": _REF},
        ["ref"],
    ),
    _spec("focus", "Focus an element.", {"ref": _REF}, ["ref"]),
    _spec(
        "press",
        "Press a key (e.g. Enter, Tab, ArrowDown), optionally on an element.",
        {"key": {"type": "string"}, "ref": _REF},
        ["key"],
    ),
    _spec(
        "scroll",
        "Scroll the page, or an element, up or down.",
        {
            "direction": {"type": "string", "enum": ["up", "down"]},
            "ref": _REF,
            "pages": {"type": "number", "description": "How many screens; default 1."},
        },
        ["direction"],
    ),
    _spec("goto", "Open a URL in the current tab.", {"url": {"type": "string"}}, ["url"]),
    _spec("back", "Go back in history.", {}, []),
    _spec("forward", "Go forward in history.", {}, []),
    _spec("reload", "Reload the page.", {}, []),
    _spec(
        "wait", "Wait for the page, up to 10 seconds.", {"seconds": {"type": "number"}}, ["seconds"]
    ),
    _spec(
        "find",
        "Search the whole page for controls and headings containing a text (for long pages).",
        {"text": {"type": "string"}},
        ["text"],
    ),
    _spec(
        "extract",
        "Answer a question from the current page's text.",
        {"question": {"type": "string"}},
        ["question"],
    ),
    _spec(
        "tabs",
        "List, switch to, or close tabs.",
        {
            "action": {"type": "string", "enum": ["list", "switch", "close"]},
            "index": {"type": "integer", "description": "1-based tab number."},
        },
        ["action"],
    ),
    _spec(
        "upload",
        "Set files (names from the upload directory) on a file input.",
        {"ref": _REF, "files": {"type": "array", "items": {"type": "string"}}},
        ["ref", "files"],
    ),
    _spec("done", "Finish with the final answer.", {"answer": {"type": "string"}}, ["answer"]),
    _spec("abort", "Give up, with the reason.", {"reason": {"type": "string"}}, ["reason"]),
]
_REQUEST_INPUT = _spec(
    "request_input",
    "Ask the user for values of form fields you have no data for. The harness fills them; you "
    "will learn which fields were filled, never the values.",
    {"refs": {"type": "array", "items": {"type": "string"}}, "reason": {"type": "string"}},
    ["refs", "reason"],
)


_REQUEST_HUMAN = _spec(
    "request_human",
    "Ask a person to take over the browser for what only a person can do: a CAPTCHA, a "
    "second-factor code, a login you have no data for. You wait until they hand it back.",
    {"reason": {"type": "string"}},
    ["reason"],
)


_FILL_CREDENTIAL = _spec(
    "fill_credential",
    "Fill a field with a part of one of this run's saved credentials; you never see the value. "
    "The harness refuses a credential not bound to the page's site or a field of the wrong "
    "kind (a password only into a password field).",
    {
        "ref": _REF,
        "credential": {"type": "string", "description": "Its name, as the page view gives it."},
        "part": {"type": "string", "enum": ["username", "password", "totp"]},
    },
    ["ref", "credential", "part"],
)


def browser_tools(
    interactive: bool, can_ask_human: bool = False, credentials: bool = False
) -> tuple[ToolSpec, ...]:
    """The tools offered: request_input on interactive runs, request_human where a person can
    answer it (an interactive run whose caller sees takeover requests), fill_credential where the
    run has credentials."""
    tools = (*_COMMON, _REQUEST_INPUT) if interactive else tuple(_COMMON)
    tools = (*tools, _FILL_CREDENTIAL) if credentials else tools
    return (*tools, _REQUEST_HUMAN) if can_ask_human else tools


UNPARSED_PREFIX = 80  # characters of arguments that did not parse, quoted back to the model


def call_errors(tools: Sequence[ToolSpec], call: ToolCall) -> list[str]:
    """What is wrong with a call, as messages for the model; empty when valid. Arguments that
    did not parse are said to be that, with how they began, not checked against the schema
    (which would call every argument missing)."""
    unparsed = call.arguments.get(INVALID_ARGUMENTS)
    if isinstance(unparsed, str) and len(call.arguments) == 1:
        return [_unparsed(unparsed)]
    tool = next((t for t in tools if t.name == call.name), None)
    if tool is None:
        return [f"unknown tool {call.name!r}"]
    return argument_errors(tool, call.arguments)


def argument_errors(tool: ToolSpec, arguments: dict[str, Any]) -> list[str]:
    """What is wrong with a call's arguments, as messages for the model; empty when valid."""
    return schema_errors(tool.parameters, arguments)


def _unparsed(raw: str) -> str:
    shown = raw if len(raw) <= UNPARSED_PREFIX else raw[:UNPARSED_PREFIX] + "…"
    try:
        json.loads(raw)
    except ValueError as error:
        why = (
            f"{error.msg} at character {error.pos}"
            if isinstance(error, json.JSONDecodeError)
            else str(error)
        )
        return f"the arguments did not parse as JSON ({why}); they began {shown!r}"
    return f"the arguments are JSON but not an object; they began {shown!r}"
