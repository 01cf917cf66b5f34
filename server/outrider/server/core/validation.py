"""Request checks shared by every edge. Paths in violations are relative to `prefix`, which the
edge sets to where the params sit in its own request (e.g. "params." or "start.automate.")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from outrider.server.core.errors import FieldViolation, InvalidArgument
from outrider.v1 import params_pb2, research_events_pb2

MAX_QUERY_CHARS = 10_000
MAX_TASK_CHARS = 100_000
DEFAULT_MAX_ITERATIONS = 50
DEFAULT_MAX_VALIDATION_ATTEMPTS = 3
_HOSTNAME = re.compile(
    r"^(?=.{1,253}$)[a-z0-9*]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$", re.I
)
_COUNTRY = re.compile(r"^[A-Z]{2}$")


def check_automate(params: params_pb2.AutomateParams, prefix: str) -> None:
    violations = [
        *_required_text(params.task, f"{prefix}task", MAX_TASK_CHARS),
        *_http_url(params.url, f"{prefix}url"),
        *_bounded(params, "max_iterations", 1, 100, prefix),
        *_bounded(params, "max_validation_attempts", 1, 10, prefix),
        *_hostnames(params.trusted_hostnames, f"{prefix}trusted_hostnames"),
    ]
    country = params.geo_target.country
    if country and not _COUNTRY.match(country):
        violations.append(
            FieldViolation(
                f"{prefix}geo_target.country", "must be an ISO 3166-1 alpha-2 code like US"
            )
        )
    _raise_if(violations)


def check_research(params: params_pb2.ResearchParams, prefix: str) -> None:
    violations = [
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
        *_hostnames(options.allowed_domains, f"{prefix}allowed_domains"),
        *_hostnames(options.blocked_domains, f"{prefix}blocked_domains"),
    ]
    if options.recipes not in params_pb2.RecipeMode.values():
        violations.append(FieldViolation(f"{prefix}recipes", "must be off, record or replay"))
    if options.model and (":" not in options.model or len(options.model) > 500):
        violations.append(FieldViolation(f"{prefix}model", 'must look like "provider:model-name"'))
    _raise_if(violations)


def max_iterations(params: params_pb2.AutomateParams) -> int:
    return params.max_iterations if params.HasField("max_iterations") else DEFAULT_MAX_ITERATIONS


def max_validation_attempts(params: params_pb2.AutomateParams) -> int:
    if params.HasField("max_validation_attempts"):
        return params.max_validation_attempts
    return DEFAULT_MAX_VALIDATION_ATTEMPTS


def _raise_if(violations: list[FieldViolation]) -> None:
    if violations:
        raise InvalidArgument(violations)


def _required_text(value: str, path: str, limit: int) -> list[FieldViolation]:
    if not value.strip():
        return [FieldViolation(path, "is required and must not be blank")]
    if len(value) > limit:
        return [FieldViolation(path, f"must be at most {limit:,} characters, got {len(value):,}")]
    return []


def _http_url(value: str, path: str) -> list[FieldViolation]:
    if not value:
        return []
    parts = urlsplit(value)
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
    return [
        FieldViolation(f"{path}[{i}]", f"{host!r} is not a hostname (no scheme, port or path)")
        for i, host in enumerate(hosts)
        if not _HOSTNAME.match(host)
    ]
