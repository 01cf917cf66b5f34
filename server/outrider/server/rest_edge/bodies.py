"""Request bodies as the tabstack SDK sends them, translated to the core's messages.

The SDK sends `maxIterations`/`maxValidationAttempts` in camelCase and the other fields in
snake_case (`trusted_hostnames`, `fetch_timeout`); both spellings are accepted for every field.
Our own run options sit in an optional `options` object (SDK: `extra_body={"options": {...}}`).
Unknown fields are ignored, as Tabstack clients may send newer ones.
"""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import json_format, struct_pb2
from starlette.requests import Request

from outrider.server.core.errors import FieldViolation, InvalidArgument
from outrider.server.core.runs.starting import RunSpec
from outrider.server.rest_edge.enums import enum_choices, enum_number
from outrider.server.rest_edge.fields import Reader
from outrider.v1 import params_pb2, profile_pb2, run_event_pb2, run_pb2
from outrider.v1 import research_events_pb2 as re_pb

MAX_BODY_BYTES = 4 * 1024 * 1024  # gRPC's default receive limit


async def read_object(request: Request, required: bool = True) -> dict[str, Any]:
    """The request's JSON object body, read up to MAX_BODY_BYTES."""
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            raise InvalidArgument.single("body", f"must be at most {MAX_BODY_BYTES} bytes")
    return parse_object(bytes(raw), required)


def parse_object(raw: bytes, required: bool = True) -> dict[str, Any]:
    """Strict JSON (RFC 8259): no NaN or Infinity, no unpaired surrogates, bounded nesting."""
    if not raw.strip() and not required:
        return {}
    try:
        body = json.loads(raw, parse_constant=_refuse_constant)
        # Raises on an unpaired surrogate ("\ud800"), which no UTF-8 store or proto can hold.
        json.dumps(body, ensure_ascii=False).encode()
    except RecursionError:
        raise InvalidArgument.single("body", "is nested too deeply") from None
    except UnicodeEncodeError:
        raise InvalidArgument.single("body", "must not contain unpaired surrogates") from None
    except ValueError:
        raise InvalidArgument.single("body", "must be a JSON object") from None
    if not isinstance(body, dict):
        raise InvalidArgument.single("body", "must be a JSON object")
    return body


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def automate_spec(body: dict[str, Any]) -> RunSpec:
    read = Reader(body)
    params = params_pb2.AutomateParams(
        task=read.string("task"),
        url=read.string("url"),
        guardrails=read.string("guardrails"),
        interactive=read.boolean("interactive"),
        max_iterations=read.integer("maxIterations", "max_iterations"),
        max_validation_attempts=read.integer("maxValidationAttempts", "max_validation_attempts"),
        trusted_hostnames=read.strings("trusted_hostnames", "trustedHostnames"),
        unsafe_mode=read.boolean("unsafe_mode", "unsafeMode"),
        geo_target=params_pb2.GeoTarget(
            country=read.nested("geo_target", "geoTarget").string("country")
        ),
    )
    data = read.obj("data")
    if data is not None:
        params.data.CopyFrom(_struct(data, read))
    options = run_options(read.nested("options"))
    read.check()
    return RunSpec(run_pb2.RUN_KIND_AUTOMATE, params, options)


def research_spec(body: dict[str, Any]) -> RunSpec:
    read = Reader(body)
    params = params_pb2.ResearchParams(
        query=read.string("query"),
        mode=enum_field(read, re_pb.ResearchMode.DESCRIPTOR, "mode"),  # type: ignore[arg-type]
        fetch_timeout=read.integer("fetch_timeout", "fetchTimeout"),
        nocache=read.boolean("nocache"),
        include_full_text=read.boolean("include_full_text", "includeFullText"),
    )
    options = run_options(read.nested("options"))
    read.check()
    return RunSpec(run_pb2.RUN_KIND_RESEARCH, params, options)


def run_options(read: Reader) -> params_pb2.RunOptions:
    return params_pb2.RunOptions(
        cancel_on_disconnect=read.boolean("cancelOnDisconnect"),
        include_screenshot_images=read.boolean("includeScreenshotImages"),
        model=read.string("model"),
        allowed_domains=read.strings("allowedDomains"),
        blocked_domains=read.strings("blockedDomains"),
        omit_prompts=read.boolean("omitPrompts"),
        recipes=enum_field(read, params_pb2.RecipeMode.DESCRIPTOR, "recipes"),  # type: ignore[arg-type]
        resume_after_side_effects=enum_field(  # type: ignore[arg-type]
            read, params_pb2.ResumeAfterSideEffects.DESCRIPTOR, "resumeAfterSideEffects"
        ),
        session=read.string("session"),
        profile=read.string("profile"),
        profile_save=enum_field(read, profile_pb2.ProfileSave.DESCRIPTOR, "profileSave"),  # type: ignore[arg-type]
        credentials=read.strings("credentials"),
    )


def input_answer(body: dict[str, Any]) -> tuple[list[tuple[str, str]], bool]:
    """(ref, value) pairs and whether the request was declined."""
    read = Reader(body)
    cancelled = read.boolean("cancelled")
    values = []
    for index, item in enumerate(read.objects("fields")):
        entry = Reader(item, f"fields[{index}].", read.violations)
        values.append((entry.string("ref"), entry.string("value")))
    read.check()
    return values, cancelled


def approval_decision(body: dict[str, Any]) -> tuple[int, int, str]:
    read = Reader(body)
    decision = enum_field(read, run_event_pb2.ApprovalDecision.DESCRIPTOR, "decision")
    scope = enum_field(read, run_event_pb2.ApprovalScope.DESCRIPTOR, "scope")
    reason = read.string("reason")
    read.check()
    return decision, scope, reason


def enum_field(read: Reader, enum: Any, name: str) -> int:
    text = read.string(name)
    if not text:
        return 0
    number = enum_number(enum, text)
    if number is None:
        read.violations.append(
            _violation(read, name, f"must be one of {', '.join(enum_choices(enum))}")
        )
        return 0
    return number


def _violation(read: Reader, name: str, description: str) -> FieldViolation:
    return FieldViolation(read.at + name, description)


def _struct(data: dict[str, Any], read: Reader) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    try:
        json_format.ParseDict(data, struct)
    except (json_format.ParseError, ValueError, TypeError):
        read.violations.append(_violation(read, "data", "must be plain JSON"))
    return struct


def cancel_reason(body: dict[str, Any]) -> str:
    read = Reader(body)
    reason = read.string("reason")
    read.check()
    return reason
