"""Request checks shared by every edge. Paths in violations are relative to `prefix`, which the
edge sets to where the params sit in its own request (e.g. "params." or "start.automate.")."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from google.protobuf import struct_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from outrider.server.core.errors import FieldViolation, InvalidArgument, quoted
from outrider.v1 import params_pb2, research_events_pb2

MAX_QUERY_CHARS = 10_000
MAX_TASK_CHARS = 100_000
MAX_GUARDRAILS_CHARS = 100_000
MAX_HOSTNAMES = 1_000  # entries of each hostname list
# `data` nests Struct -> map entry -> Value -> Struct per JSON level, and protobuf refuses to
# decode messages nested deeper than 100: a run with 34 levels was stored but never read back.
# 20 levels leave room for the envelopes a run travels in (responses, events, the store).
MAX_DATA_DEPTH = 20
MAX_DATA_BYTES = 256 * 1024
# A reason is stored in the run or interaction and sent in events: without a bound, one caller's
# megabyte reason would make that run too big for every reader.
MAX_REASON_CHARS = 1_000
MAX_LABELS = 16
MAX_LABEL_CHARS = 256
_LABEL_KEY = re.compile(r"[a-z0-9][a-z0-9._-]{0,62}")
DEFAULT_MAX_ITERATIONS = 50
DEFAULT_MAX_VALIDATION_ATTEMPTS = 3
# Matched with fullmatch: `$` would also accept a trailing newline.
_HOSTNAME = re.compile(
    r"(?=.{1,253}\Z)[a-z0-9*]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*", re.I
)
_COUNTRY = re.compile(r"[A-Z]{2}")
_URL_FORBIDDEN = re.compile(r"[\x00-\x20\x7f]")  # controls and spaces: never in a sent URL


def check_automate(params: params_pb2.AutomateParams, prefix: str) -> None:
    violations = [
        *_nul_free(params, prefix),
        *_required_text(params.task, f"{prefix}task", MAX_TASK_CHARS),
        *_at_most(params.guardrails, f"{prefix}guardrails", MAX_GUARDRAILS_CHARS),
        *http_url_violations(params.url, f"{prefix}url"),
        *_bounded(params, "max_iterations", 1, 100, prefix),
        *_bounded(params, "max_validation_attempts", 1, 10, prefix),
        *_hostnames(params.trusted_hostnames, f"{prefix}trusted_hostnames"),
    ]
    country = params.geo_target.country
    if params.HasField("data"):
        violations.extend(check_data(params.data, f"{prefix}data"))
    if country and not _COUNTRY.fullmatch(country):
        violations.append(
            FieldViolation(
                f"{prefix}geo_target.country", "must be an ISO 3166-1 alpha-2 code like US"
            )
        )
    _raise_if(violations)


def check_research(params: params_pb2.ResearchParams, prefix: str) -> None:
    violations = [
        *_nul_free(params, prefix),
        *_required_text(params.query, f"{prefix}query", MAX_QUERY_CHARS),
        *_bounded(params, "fetch_timeout", 1, 300, prefix),
    ]
    if params.mode not in research_events_pb2.ResearchMode.values():
        violations.append(
            FieldViolation(f"{prefix}mode", "must be one of fast, balanced, deep, max, ultra")
        )
    _raise_if(violations)


def check_options(options: params_pb2.RunOptions, prefix: str) -> None:
    violations = [
        *_nul_free(options, prefix),
        *_hostnames(options.allowed_domains, f"{prefix}allowed_domains"),
        *_hostnames(options.blocked_domains, f"{prefix}blocked_domains"),
    ]
    if options.recipes not in params_pb2.RecipeMode.values():
        violations.append(FieldViolation(f"{prefix}recipes", "must be off, record or replay"))
    if options.resume_after_side_effects not in params_pb2.ResumeAfterSideEffects.values():
        violations.append(
            FieldViolation(f"{prefix}resume_after_side_effects", "must be ask, end or repeat")
        )
    _raise_if(violations)


def chosen_model(
    name: str, offered: Mapping[str, str], scenario_dirs: Sequence[Path], field: str
) -> str:
    """The model spec a start's `options.model` stands for ("" keeps the server's own): a name
    the operator offers this caller, or `scripted:<file>` inside a folder opened to callers.
    Anything else is refused before any file is read or any address reached, in the same words
    whatever it names, so a refusal tells nothing about the server's files or network."""
    if not name:
        return ""
    spec = offered.get(name)
    if spec is not None:
        return spec
    if name.startswith("scripted:") and _opened_scenario(
        name.removeprefix("scripted:"), scenario_dirs
    ):
        return name
    raise InvalidArgument.single(field, _choices(offered, scenario_dirs))


def _choices(offered: Mapping[str, str], scenario_dirs: Sequence[Path]) -> str:
    scripted = "scripted:<file> in a scenario folder the operator opened"
    if offered:
        listed = ", ".join(sorted(offered))
        also = f"; or {scripted}" if scenario_dirs else ""
        return f"must name a model this server offers its callers: {listed}{also}"
    if scenario_dirs:
        return f"must be {scripted}"
    return "must be empty: this server offers its callers no choice of model"


def _opened_scenario(path: str, folders: Sequence[Path]) -> bool:
    """An absolute path without `..`, in one of `folders` as written, and still in one once its
    symbolic links are followed. Paths outside every folder are judged by their text alone."""
    candidate = PurePosixPath(path)
    if not candidate.is_absolute() or ".." in candidate.parts or "\x00" in path:
        return False
    if not any(candidate.is_relative_to(folder) for folder in folders):
        return False
    try:
        real = Path(candidate).resolve()
        return any(real.is_relative_to(folder.resolve()) for folder in folders)
    except (OSError, RuntimeError):  # a link loop, a name too long: nothing anyone can read
        return False


def check_labels(labels: Mapping[str, str]) -> None:
    """Labels an edge gives a run: a few short keys of its namespace, short printable values."""
    if len(labels) > MAX_LABELS:
        raise InvalidArgument.single("labels", f"must be at most {MAX_LABELS}")
    violations = [
        FieldViolation(f"labels[{quoted(key)}]", problem)
        for key, value in labels.items()
        for problem in _label_problems(key, value)
    ]
    _raise_if(violations)


def _label_problems(key: str, value: str) -> list[str]:
    problems = [] if _LABEL_KEY.fullmatch(key) else ["keys are 1 to 63 of a-z, 0-9, '.', '_', '-'"]
    if len(value) > MAX_LABEL_CHARS:
        problems.append(f"must be at most {MAX_LABEL_CHARS} characters")
    if not value.isprintable():
        problems.append("must be printable text")
    return problems


def check_resume_option(
    params: params_pb2.AutomateParams, options: params_pb2.RunOptions, prefix: str
) -> None:
    """ASK needs someone who can answer the approval: an interactive run whose caller sees
    approvals (not refuse_held_actions)."""
    asks = options.resume_after_side_effects == params_pb2.RESUME_AFTER_SIDE_EFFECTS_ASK
    if asks and (not params.interactive or options.refuse_held_actions):
        raise InvalidArgument.single(
            f"{prefix}resume_after_side_effects",
            "ask needs an interactive run whose caller can answer approvals (interactive: true; "
            "on REST also the x-outrider-approval-events header); choose end or repeat",
        )


def check_reason(reason: str, field: str = "reason") -> None:
    """A caller's cancel or approval reason: short, and no NUL."""
    if len(reason) > MAX_REASON_CHARS:
        raise InvalidArgument.single(field, f"must be at most {MAX_REASON_CHARS:,} characters")
    if "\x00" in reason:
        raise InvalidArgument.single(field, "must not contain NUL characters")


def max_iterations(params: params_pb2.AutomateParams) -> int:
    return params.max_iterations if params.HasField("max_iterations") else DEFAULT_MAX_ITERATIONS


def max_validation_attempts(params: params_pb2.AutomateParams) -> int:
    if params.HasField("max_validation_attempts"):
        return params.max_validation_attempts
    return DEFAULT_MAX_VALIDATION_ATTEMPTS


def _raise_if(violations: list[FieldViolation]) -> None:
    if violations:
        raise InvalidArgument(violations)


def check_data(data: struct_pb2.Struct, path: str) -> list[FieldViolation]:
    """`data` must read back everywhere: bounded depth and size, finite numbers only (JSON has
    no NaN or Infinity, so REST could not send them back)."""
    size = data.ByteSize()
    if size > MAX_DATA_BYTES:
        return [
            FieldViolation(path, f"must be at most {MAX_DATA_BYTES:,} bytes encoded, got {size:,}")
        ]
    for depth, value in _json_values(data):
        if depth > MAX_DATA_DEPTH:
            return [FieldViolation(path, f"must nest at most {MAX_DATA_DEPTH} levels deep")]
        if value.WhichOneof("kind") == "number_value" and not math.isfinite(value.number_value):
            return [FieldViolation(path, "must hold finite numbers only (no NaN or Infinity)")]
    return []


def _json_values(data: struct_pb2.Struct) -> Iterator[tuple[int, struct_pb2.Value]]:
    """Every Value inside `data` with its depth (a member of `data` itself is at depth 1),
    without recursion: the stack is as deep as the data, however deep that is."""
    stack: list[tuple[int, struct_pb2.Struct | struct_pb2.ListValue]] = [(1, data)]
    while stack:
        depth, container = stack.pop()
        values = (
            container.fields.values()
            if isinstance(container, struct_pb2.Struct)
            else container.values
        )
        for value in values:
            yield depth, value
            kind = value.WhichOneof("kind")
            if kind == "struct_value":
                stack.append((depth + 1, value.struct_value))
            elif kind == "list_value":
                stack.append((depth + 1, value.list_value))


def _nul_free(message: Message, prefix: str) -> list[FieldViolation]:
    """No text field of the request may hold a NUL character (C strings end there)."""
    return [
        FieldViolation(f"{prefix}{field.name}", "must not contain NUL characters")
        for field, value in message.ListFields()
        if field.type == FieldDescriptor.TYPE_STRING
        and any("\x00" in text for text in (value if field.is_repeated else [value]))
    ]


def _required_text(value: str, path: str, limit: int) -> list[FieldViolation]:
    if not value.strip():
        return [FieldViolation(path, "is required and must not be blank")]
    return _at_most(value, path, limit)


def _at_most(value: str, path: str, limit: int) -> list[FieldViolation]:
    if len(value) > limit:
        return [FieldViolation(path, f"must be at most {limit:,} characters, got {len(value):,}")]
    return []


def http_url_violations(value: str, path: str) -> list[FieldViolation]:
    if not value:
        return []
    if _URL_FORBIDDEN.search(value):
        return [FieldViolation(path, "must not contain spaces or control characters")]
    try:
        parts = urlsplit(value)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return [FieldViolation(path, "must be an absolute http or https URL")]
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return [FieldViolation(path, "must be an absolute http or https URL")]
    return []


def _bounded(message: object, name: str, low: int, high: int, prefix: str) -> list[FieldViolation]:
    if not message.HasField(name):  # type: ignore[attr-defined]
        return []
    value = getattr(message, name)
    if not low <= value <= high:
        return [FieldViolation(f"{prefix}{name}", f"must be between {low} and {high}, got {value}")]
    return []


def _hostnames(hosts: Sequence[str], path: str) -> list[FieldViolation]:
    if len(hosts) > MAX_HOSTNAMES:
        return [FieldViolation(path, f"must list at most {MAX_HOSTNAMES:,} hostnames")]
    return [
        FieldViolation(
            f"{path}[{i}]", f"{quoted(host)} is not a hostname (no scheme, port or path)"
        )
        for i, host in enumerate(hosts)
        if not _HOSTNAME.fullmatch(host)
    ]
