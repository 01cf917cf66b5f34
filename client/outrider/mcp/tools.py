"""The tools: names, descriptions, input and output schemas (JSON Schema 2020-12), hints.

Arguments use the contract's field names (snake_case); `arguments.py` checks them against these
schemas' rules, since the SDK's low-level server applies no schema itself.
"""

from __future__ import annotations

from typing import Any, Final

from mcp import types

AUTOMATE: Final = "automate"
RESEARCH: Final = "research"
GET_RUN: Final = "get_run"
LIST_RUNS: Final = "list_runs"
CANCEL_RUN: Final = "cancel_run"
READ_ARTIFACT: Final = "read_artifact"
START_SESSION: Final = "start_session"
END_SESSION: Final = "end_session"

STATES: Final = (
    "queued",
    "running",
    "input_required",
    "approval_required",
    "succeeded",
    "failed",
    "cancelled",
)
KINDS: Final = ("automate", "research")
MODES: Final = ("fast", "balanced", "deep", "max", "ultra")

_TEXT: Final = {"type": "string"}
_TEXTS: Final = {"type": "array", "items": {"type": "string"}}
_RUN_ARG: Final = {
    "type": "string",
    "description": 'The run: its resource name "runs/<id>" (as results name it) or the bare id.',
}

_SESSION_ARG: Final = {
    "type": "string",
    "description": 'Run in this session ("sessions/<id>", from start_session): a browser run '
    "starts on the session's page with its cookies and knows the session's earlier runs; a "
    "research run knows the earlier reports and reuses the pages they read.",
}

_RUN_OPTIONS: Final[dict[str, Any]] = {
    "model": {"type": "string", "description": 'Model for this run, "provider:name".'},
    "cancel_on_disconnect": {
        "type": "boolean",
        "description": "true: cancel the run when this call is abandoned (the client "
        "disconnects or its request times out). false: the run never ends with this call, not "
        "even when the client cancels it. Unset: the run goes on unless the client cancels the "
        "call for a reason other than a timeout; get_run finds it.",
    },
}
_REQUEST_ID: Final = {
    "type": "string",
    "format": "uuid",
    "description": "Makes the start idempotent: a call repeated with the same request_id and "
    "the same arguments (a retry after a timeout or a lost connection) follows the run the "
    "first one started instead of starting another.",
}
_AUTOMATE_OPTIONS: Final[dict[str, Any]] = _RUN_OPTIONS | {
    "max_iterations": {"type": "integer", "minimum": 1, "maximum": 500},
    "trusted_hostnames": _TEXTS
    | {
        "description": "Hosts (*.example.com works) where the agent may fill and submit forms "
        "without asking for approval."
    },
    "allowed_domains": _TEXTS | {"description": "Only these domains may be visited."},
    "blocked_domains": _TEXTS | {"description": "These domains may not be visited."},
    "profile": {
        "type": "string",
        "description": 'A saved profile to start from, "profiles/<id>": its cookies and storage '
        "(a site it is signed in to stays signed in).",
    },
    "profile_save": {
        "type": "string",
        "enum": ["never", "on_success", "always"],
        "description": "Save the browser's state back to the profile when the run ends.",
    },
    "credentials": _TEXTS
    | {
        "description": 'Saved credentials the run may use to log in, "credentials/<id>"; the '
        "model never sees their values."
    },
}

_AUTOMATE_INPUT: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "task": {"type": "string", "description": "What the browser agent should do, in words."},
        "url": {"type": "string", "format": "uri", "description": "The page to start on."},
        "data": {
            "type": "object",
            "description": 'Values the agent may enter into forms, e.g. {"email": "..."}. '
            'Values under keys such as password, token or pin, and any {"$secret": "..."}, '
            "reach the model only as placeholders.",
        },
        "guardrails": {"type": "string", "description": "Rules the agent must keep to."},
        "session": _SESSION_ARG,
        "request_id": _REQUEST_ID,
        "options": {
            "type": "object",
            "properties": _AUTOMATE_OPTIONS,
            "additionalProperties": False,
        },
    },
    "required": ["task"],
    "additionalProperties": False,
}

_RESEARCH_INPUT: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "The research question."},
        "mode": {
            "type": "string",
            "enum": list(MODES),
            "description": "Depth and budget: fast (default), balanced, deep, max, ultra.",
        },
        "session": _SESSION_ARG,
        "request_id": _REQUEST_ID,
        "options": {"type": "object", "properties": _RUN_OPTIONS, "additionalProperties": False},
    },
    "required": ["query"],
    "additionalProperties": False,
}

_CITATION: Final = {
    "type": "object",
    "properties": {
        "id": _TEXT,
        "url": _TEXT,
        "title": _TEXT,
        "claims": _TEXTS,
    },
    "required": ["id", "url"],
}
_QUESTION: Final = {
    "type": "object",
    "properties": {
        "interaction": _TEXT,
        "kind": {"type": "string", "enum": ["form_data", "approval"]},
        "summary": _TEXT,
        "expire_time": _TEXT,
    },
    "required": ["interaction", "kind", "summary"],
}

RUN_RESULT: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "run": {"type": "string", "description": 'Resource name, "runs/<id>".'},
        "kind": {"type": "string", "enum": list(KINDS)},
        "state": {"type": "string", "enum": list(STATES)},
        "success": {"type": "boolean"},
        "final_answer": {"type": "string", "description": "The browser agent's answer."},
        "report": {"type": "string", "description": "The research report (Markdown)."},
        "citations": {"type": "array", "items": _CITATION},
        "sources": {
            "type": "array",
            "items": {"type": "object", "properties": {"url": _TEXT, "title": _TEXT}},
        },
        "error": {
            "type": "object",
            "properties": {"code": _TEXT, "message": _TEXT},
            "required": ["code", "message"],
        },
        "pending_questions": {"type": "array", "items": _QUESTION},
        "screenshots": {"type": "array", "items": _TEXT},
        "notes": {"type": "array", "items": _TEXT},
    },
    "required": ["run", "kind", "state"],
}

_RUN_SUMMARY: Final = {
    "type": "object",
    "properties": {
        "run": _TEXT,
        "kind": {"type": "string", "enum": list(KINDS)},
        "state": {"type": "string", "enum": list(STATES)},
        "task": {"type": "string", "description": "The task or research question."},
        "create_time": _TEXT,
        "success": {"type": "boolean"},
    },
    "required": ["run", "kind", "state", "task", "create_time"],
}
RUN_LIST: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "runs": {"type": "array", "items": _RUN_SUMMARY},
        "next_page_token": {"type": "string"},
    },
    "required": ["runs", "next_page_token"],
}
ARTIFACT: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"artifact": _TEXT, "content_type": _TEXT, "size": {"type": "integer"}},
    "required": ["artifact", "content_type", "size"],
}


SESSION_RESULT: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "session": {"type": "string", "description": 'Resource name, "sessions/<id>".'},
        "kind": {"type": "string", "enum": list(KINDS)},
        "state": {"type": "string", "enum": ["idle", "running", "controlled", "ended"]},
        "current_url": _TEXT,
        "run_count": {"type": "integer"},
        "expire_time": _TEXT,
        "end_reason": _TEXT,
        "profile": {"type": "string", "description": "The profile its browser started from."},
    },
    "required": ["session", "kind", "state"],
}
_START_SESSION_INPUT: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "kind": {
            "type": "string",
            "enum": list(KINDS),
            "description": "automate (a live browser, the default) or research.",
        },
        "start_url": {"type": "string", "format": "uri", "description": "The browser's page."},
        "idle_timeout_seconds": {"type": "integer", "minimum": 1},
        "max_life_seconds": {"type": "integer", "minimum": 1},
        "profile": {
            "type": "string",
            "description": 'A saved profile its browser starts from, "profiles/<id>": its '
            "cookies and storage (a site it is signed in to stays signed in). The session does "
            "not save to it by itself; a run in it may, with options.profile_save. Only for a "
            "browser session.",
        },
        "request_id": _REQUEST_ID
        | {
            "description": "Makes the call idempotent: repeated with the same request_id and "
            "the same arguments (a retry after a timeout or a lost connection), it returns the "
            "session the first one started instead of starting another."
        },
    },
    "additionalProperties": False,
}


def _tool(
    name: str,
    title: str,
    description: str,
    schemas: tuple[dict[str, Any], dict[str, Any]],
    hints: types.ToolAnnotations,
) -> types.Tool:
    return types.Tool(
        name=name,
        title=title,
        description=description,
        input_schema=schemas[0],
        output_schema=schemas[1],
        annotations=hints,
    )


def _run_only(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"run": _RUN_ARG} | (extra or {}),
        "required": ["run"],
        "additionalProperties": False,
    }


TOOLS: Final[tuple[types.Tool, ...]] = (
    _tool(
        AUTOMATE,
        "Browser agent",
        "Runs an AI browser agent on a real browser to do a task on web pages (find, read, fill "
        "in, click). Reports each step as progress; asks the user through the client for form "
        "values it lacks and for approval before sending data to an untrusted site (passwords "
        "go to a separate answer page, never through the chat). Returns the final answer.",
        (_AUTOMATE_INPUT, RUN_RESULT),
        types.ToolAnnotations(destructive_hint=True, open_world_hint=True),
    ),
    _tool(
        RESEARCH,
        "Research agent",
        "Researches a question on the web: plans, searches, reads pages, writes a report whose "
        "citations name only pages it read. Reports each phase as progress.",
        (_RESEARCH_INPUT, RUN_RESULT),
        types.ToolAnnotations(read_only_hint=True, open_world_hint=True),
    ),
    _tool(
        GET_RUN,
        "Get a run",
        "A run's state and, once it ended, its result. With wait=true, follows the run until "
        "it ends (progress and questions as when it was started): how to pick up a run whose "
        "call was interrupted.",
        (
            _run_only(
                {"wait": {"type": "boolean", "description": "Follow the run until it ends."}}
            ),
            RUN_RESULT,
        ),
        types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    ),
    _tool(
        LIST_RUNS,
        "List runs",
        "Runs, newest first, optionally of one state and kind; page with next_page_token.",
        (
            {
                "type": "object",
                "properties": {
                    "state": {"type": "string", "enum": list(STATES)},
                    "kind": {"type": "string", "enum": list(KINDS)},
                    "page_size": {"type": "integer", "minimum": 1, "maximum": 100},
                    "page_token": {"type": "string"},
                },
                "additionalProperties": False,
            },
            RUN_LIST,
        ),
        types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    ),
    _tool(
        CANCEL_RUN,
        "Cancel a run",
        "Cancels a run (harmless when it already ended) and returns how it ended.",
        (_run_only({"reason": {"type": "string", "maxLength": 1000}}), RUN_RESULT),
        types.ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False),
    ),
    _tool(
        START_SESSION,
        "Start a session",
        "Keeps a browser (or a research thread) open between runs: pass the returned session to "
        "automate or research, and each run starts where the last one left it (same page, "
        "cookies, logged-in state) and knows what the earlier ones did. One run at a time. It "
        "ends after its idle timeout, its maximum life, or end_session.",
        (_START_SESSION_INPUT, SESSION_RESULT),
        types.ToolAnnotations(open_world_hint=True),
    ),
    _tool(
        END_SESSION,
        "End a session",
        "Ends a session (its active run is cancelled first) and closes its browser.",
        (
            {
                "type": "object",
                "properties": {"session": _TEXT, "reason": {"type": "string", "maxLength": 1000}},
                "required": ["session"],
                "additionalProperties": False,
            },
            SESSION_RESULT,
        ),
        types.ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False),
    ),
    _tool(
        READ_ARTIFACT,
        "Read an artifact",
        "A screenshot (as an image) or a download of a run, by the name a result lists "
        '("runs/<id>/artifacts/<id>").',
        (
            {
                "type": "object",
                "properties": {"artifact": _TEXT},
                "required": ["artifact"],
                "additionalProperties": False,
            },
            ARTIFACT,
        ),
        types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    ),
)
