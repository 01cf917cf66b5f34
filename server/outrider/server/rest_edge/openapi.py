"""The OpenAPI 3.1 document of the REST/SSE edge, served at /openapi.json."""

from __future__ import annotations

from typing import Any

from outrider.server.rest_edge.enums import enum_choices
from outrider.server.rest_edge.idempotency import KEY_PATTERN
from outrider.server.rest_edge.openapi_links import add_links
from outrider.server.rest_edge.openapi_vault import vault_options, vault_paths, vault_schemas
from outrider.server.rest_edge.openapi_webhooks import webhook_paths, webhook_schemas
from outrider.v1 import interaction_pb2, params_pb2, run_event_pb2, run_pb2
from outrider.v1 import research_events_pb2 as re_pb
from outrider.v1.session_pb2 import SessionState

_ID = {"type": "string", "pattern": "^[0-9a-z]{8,64}$"}
_INT32 = {"type": "integer", "minimum": 0, "maximum": 2**31 - 1}
_STRINGS = {"type": "array", "items": {"type": "string"}}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_ERRORS = {
    str(code): _json(_ref("Error"), text)
    for code, text in (
        (400, "invalid request (field violations listed)"),
        (401, "missing or wrong API key"),
        (403, "the key lacks the scope this route needs"),
        (404, "no such run or interaction (or one of another tenant)"),
        (409, "valid request at the wrong moment"),
        (429, "too many active runs or starts (server or principal); see Retry-After"),
        (501, "not implemented"),
        (503, "shutting down, or the store is unreachable (a start: see Idempotency-Key)"),
    )
}
_SSE = {
    "description": "Server-sent events (`id:` sequence, `event:` Tabstack name, `data:` JSON). "
    "Header Location names the resume URL.",
    "content": {"text/event-stream": {"schema": {"type": "string"}}},
}
_APPROVAL_HEADER = {
    "name": "X-Outrider-Approval-Events",
    "in": "header",
    "required": False,
    "description": "true: also stream approval_requested, approval_resolved, input_resolved, "
    "run_queued, recipe_replayed, run_resumed, side_effect, takeover_requested, "
    "takeover_started and takeover_ended, and the typed fields beyond Tabstack's schema "
    "(cached-token counts). An automate run started without it cannot be asked for approvals "
    "(actions the firewall holds are refused at once and the model is told; a run taken over "
    "after it did side effects ends instead of asking) nor ask for a person (request_human is "
    "not offered).",
    "schema": {"type": "string", "enum": ["true", "false"]},
}


_IDEMPOTENCY_HEADER = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Makes the start idempotent (IETF httpapi Idempotency-Key draft): a quoted "
    'string such as "8e03978e-40d5-43e8-bc93-6894a57f9324", made once per intended run and sent '
    "again with every retry. The same key with the same request (same principal, within "
    "OUTRIDER_IDEMPOTENCY_TTL) streams the run it started, from its first event, with "
    "Idempotent-Replayed: true; with a different request, 422. Absent: every call starts a new "
    "run.",
    "schema": {"type": "string", "pattern": KEY_PATTERN, "maxLength": 257},
}
_SESSION_KEY_HEADER = _IDEMPOTENCY_HEADER | {
    "description": "Makes the create idempotent, by the rules of a start's Idempotency-Key: the "
    "same key with the same request (same principal, while the session is live or within "
    "OUTRIDER_IDEMPOTENCY_TTL of its creation) answers 200 with the session it created and "
    "Idempotent-Replayed: true; with a different request, 422. Absent: every call creates a new "
    "session."
}
_STARTED = {
    **_SSE,
    "headers": {
        "Idempotent-Replayed": {
            "description": "true when an earlier start with this Idempotency-Key made the run",
            "schema": {"type": "string", "enum": ["true"]},
        }
    },
}
_KEY_REUSED = {"422": _json(_ref("Error"), "the Idempotency-Key was used for another request")}


def _path(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": _ID}


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema}


def _operation(
    summary: str,
    responses: dict[str, Any],
    body: str | None = None,
    parameters: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    operation: dict[str, Any] = {"summary": summary, "responses": responses | _ERRORS}
    if body:
        operation["responses"]["415"] = _json(_ref("Error"), "Content-Type is not application/json")
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": _ref(body)}},
        }
    if parameters:
        operation["parameters"] = parameters
    return operation


def _paths() -> dict[str, Any]:
    accepted = {
        "202": _json(_ref("Accepted"), "answer accepted"),
        "410": _json(_ref("Error"), "expired or already answered"),
    }
    page = [
        _query("pageSize", {"type": "integer", "minimum": 0, "maximum": 1000}),
        _query("pageToken", {"type": "string"}),
    ]
    obj = {"type": "object"}
    one_run = {"200": _json(obj, "the run")}
    cursor = [
        _header("Last-Event-ID", {"type": "string", "pattern": "^[0-9]{1,18}$"}),
        _query("after", {"type": "integer", "minimum": 0}),
    ]
    return {
        "/v1/automate": {
            "post": _operation(
                "Start a browser-automation run and stream its events",
                {"200": _STARTED, **_KEY_REUSED},
                "AutomateRequest",
                [_APPROVAL_HEADER, _IDEMPOTENCY_HEADER],
            )
        },
        "/v1/automate/{requestId}/input": {
            "post": _operation(
                "Answer an interactive:form_data:request",
                accepted,
                "InputRequest",
                [_path("requestId")],
            )
        },
        "/v1/automate/{approvalId}/approval": {
            "post": _operation(
                "Approve or reject an approval_requested",
                accepted,
                "ApprovalRequest",
                [_path("approvalId")],
            )
        },
        "/v1/research": {
            "post": _operation(
                "Start a research run and stream its events",
                {"200": _STARTED, **_KEY_REUSED},
                "ResearchRequest",
                [_APPROVAL_HEADER, _IDEMPOTENCY_HEADER],
            )
        },
        "/v1/runs": {
            "get": _operation(
                "List runs, newest first",
                {"200": _json(obj, "a page of runs")},
                None,
                [
                    *page,
                    _query("kind", _enum(run_pb2.RunKind)),
                    _query("state", _enum(run_pb2.RunState)),
                    _query("taskContains", {"type": "string", "maxLength": 200}),
                ],
            )
        },
        "/v1/runs/{runId}": {
            "get": _operation("Get a run", one_run, None, [_path("runId")]),
            "delete": _operation(
                "Delete a finished run with its events, interactions and artifacts "
                "(409 RUN_ACTIVE while it runs: cancel it first)",
                {"200": _json(_ref("Deleted"), "the run as it was, and the bytes freed")},
                None,
                [_path("runId")],
            ),
        },
        "/v1/runs/{runId}/cancel": {
            "post": _operation(
                "Cancel a run (idempotent)", one_run, "CancelRequest", [_path("runId")]
            )
        },
        "/v1/runs/{runId}/events": {
            "get": _operation(
                "Replay a run's events after a cursor, then follow live",
                {"200": _SSE},
                None,
                [_path("runId"), *cursor, _APPROVAL_HEADER],
            )
        },
        "/v1/runs/{runId}/artifacts/{artifactId}": {
            "get": _operation(
                "Read an artifact (screenshot, download): its bytes, with its media type",
                {
                    "200": {
                        "description": "the artifact's bytes",
                        "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
                    }
                },
                None,
                [_path("runId"), _path("artifactId")],
            )
        },
        "/v1/interactions": {
            "get": _operation(
                "List interactions (pending by default)",
                {"200": _json(obj, "a page of interactions")},
                None,
                [
                    *page,
                    _query("run", _ID),
                    _query("state", _enum(interaction_pb2.InteractionState)),
                ],
            )
        },
        "/v1/interactions/{interactionId}": {
            "get": _operation(
                "Get an interaction",
                {"200": _json(obj, "the interaction")},
                None,
                [_path("interactionId")],
            )
        },
        **_session_paths(page, cursor),
        **webhook_paths(_operation, _path, page, _json),
        "/healthz": {
            "get": {
                "summary": "Readiness: can runs start here? (no API key needed)",
                "security": [],
                "responses": {
                    "200": _json(obj, "serving: runs can start"),
                    "503": _json(
                        obj,
                        "not serving: shutting down (reason SHUTTING_DOWN), no kind of run "
                        "can start here (reason NO_AGENT_CAN_RUN; `problems` says why, per "
                        "kind), or the store has been unreachable longer than "
                        "OUTRIDER_STORE_UNREADY_AFTER (reason STORE_UNREACHABLE, with "
                        "`unreachableSeconds`)",
                    ),
                },
            }
        },
        "/metrics": {
            "get": {
                "summary": "Prometheus metrics (text exposition format)",
                "responses": {
                    "200": {
                        "description": "outrider_* metrics",
                        "content": {"text/plain": {"schema": {"type": "string"}}},
                    }
                },
            }
        },
    }


def _session_paths(page: list[Any], cursor: list[Any]) -> dict[str, Any]:
    """Sessions (SessionService), beside the Tabstack routes."""
    one = {"200": _json({"type": "object"}, "the session")}
    named = [_path("sessionId")]
    return {
        "/v1/sessions": {
            "post": _operation(
                "Create a session (a live browser, or a research thread, kept between runs)",
                {
                    "201": _json({"type": "object"}, "the live session"),
                    "200": _json(
                        {"type": "object"},
                        "the session an earlier create with this Idempotency-Key made "
                        "(Idempotent-Replayed: true)",
                    ),
                    **_KEY_REUSED,
                },
                "CreateSessionRequest",
                [_SESSION_KEY_HEADER],
            ),
            "get": _operation(
                "List sessions, newest first",
                {"200": _json({"type": "object"}, "a page of sessions")},
                None,
                [
                    *page,
                    _query("kind", _enum(run_pb2.RunKind)),
                    _query("state", _enum(SessionState)),
                ],
            ),
        },
        "/v1/sessions/{sessionId}": {"get": _operation("Get a session", one, None, named)},
        "/v1/sessions/{sessionId}/end": {
            "post": _operation("End a session (idempotent)", one, "CancelRequest", named)
        },
        "/v1/sessions/{sessionId}/events": {
            "get": _operation(
                "Replay a session's events (its own and its runs') after a cursor, then follow",
                {"200": _SSE},
                None,
                [*named, *cursor],
            )
        },
    }


def _enum(enum: Any) -> dict[str, Any]:
    return {"type": "string", "enum": enum_choices(enum.DESCRIPTOR)}


def _header(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "header", "required": False, "schema": schema}


def _schemas() -> dict[str, Any]:
    options = {
        "type": "object",
        "description": "Outrider's own run options (not part of Tabstack).",
        "properties": {
            "cancelOnDisconnect": {"type": "boolean"},
            "includeScreenshotImages": {"type": "boolean"},
            "model": {"type": "string"},
            "allowedDomains": _STRINGS,
            "blockedDomains": _STRINGS,
            "omitPrompts": {
                "type": "boolean",
                "description": "Leave prompt bodies out of ai:generation events.",
            },
            "recipes": {
                **_enum(params_pb2.RecipeMode),
                "description": "Browser runs: record a recipe when the run succeeds (record), "
                "or replay the task's recipe without the model, else record one (replay).",
            },
            "session": {
                "type": "string",
                "description": "Run in this session (sessions/{id}): a browser run starts on the "
                "session's page with its cookies and tabs; the model sees the earlier runs.",
            },
            "resumeAfterSideEffects": {
                **_enum(params_pb2.ResumeAfterSideEffects),
                "description": "Browser runs taken over by another replica after they did side "
                "effects (forms sent, non-GET requests, downloads, uploads, approvals granted): "
                "ask (an approval listing them; needs interactive and the approval events "
                "header), end (the run fails: complete.error.code TASK_FAILED, the message "
                "starts with RESUME_UNSAFE; the run's outcome.errorCode is RESUME_UNSAFE) or "
                "repeat. Default: ask when the run can be asked, else end.",
            },
        },
    }
    field = {
        "type": "object",
        "properties": {"ref": {"type": "string"}, "value": {"type": "string"}},
    }
    options["properties"] = {**options["properties"], **vault_options()}  # type: ignore[dict-item]
    return vault_schemas() | {
        "RunOptions": options,
        "AutomateRequest": {"type": "object", "required": ["task"], "properties": {
            "task": {"type": "string"}, "url": {"type": "string"}, "data": {"type": "object"},
            "guardrails": {"type": "string"}, "interactive": {"type": "boolean"},
            "maxIterations": _INT32, "maxValidationAttempts": _INT32,
            "trusted_hostnames": _STRINGS, "unsafe_mode": {"type": "boolean"},
            "geo_target": {"type": "object", "properties": {"country": {"type": "string"}}},
            "options": _ref("RunOptions")}},
        "ResearchRequest": {"type": "object", "required": ["query"], "properties": {
            "query": {"type": "string"}, "mode": _enum(re_pb.ResearchMode),
            "fetch_timeout": _INT32, "nocache": {"type": "boolean"},
            "include_full_text": {"type": "boolean"}, "options": _ref("RunOptions")}},
        "InputRequest": {"type": "object", "properties": {
            "fields": {"type": "array", "items": field}, "cancelled": {"type": "boolean"}}},
        "ApprovalRequest": {"type": "object", "required": ["decision"], "properties": {
            "decision": _enum(run_event_pb2.ApprovalDecision),
            "scope": _enum(run_event_pb2.ApprovalScope),
            "reason": {"type": "string"}}},
        "CancelRequest": {"type": "object", "properties": {"reason": {"type": "string"}}},
        "CreateSessionRequest": {"type": "object", "required": ["kind"], "properties": {
            "kind": _enum(run_pb2.RunKind), "startUrl": {"type": "string"},
            "idleTimeout": _INT32, "maxLife": _INT32, "labels": {"type": "object"},
            "profile": {"type": "string"}}},
        "Accepted": {"type": "object", "properties": {"status": {"const": "accepted"}}},
        "Deleted": {"type": "object", "required": ["run", "freedArtifactBytes"], "properties": {
            "run": {"type": "object"}, "freedArtifactBytes": {"type": "integer", "minimum": 0}}},
        "Error": {"type": "object", "properties": {"error": {"type": "object", "properties": {
            "status": {"type": "integer"}, "reason": {"type": "string"},
            "message": {"type": "string"}, "fieldViolations": {"type": "array"},
            "retryAfter": {"type": "number"}}}}},
        **webhook_schemas(),
    }  # fmt: skip


def openapi_document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Outrider REST/SSE (Tabstack-compatible)", "version": "1"},
        "paths": add_links(_paths() | vault_paths(_operation)),
        "components": {
            "schemas": _schemas(),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    }
