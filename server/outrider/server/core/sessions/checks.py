"""What a request to create a session may ask for, checked field by field in the caller's terms."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from google.protobuf import duration_pb2

from outrider.server.core import validation
from outrider.server.core.errors import FieldViolation, InvalidArgument
from outrider.server.core.vault.names import parse_profile_name
from outrider.server.settings.sessions import SessionSettings
from outrider.v1 import run_pb2

SHORTEST = 1.0  # seconds: the shortest idle timeout or maximum life a caller may ask for
KINDS: dict[int, str] = {
    run_pb2.RUN_KIND_AUTOMATE: "browser",
    run_pb2.RUN_KIND_RESEARCH: "research",
}


@dataclass(frozen=True)
class SessionSpec:
    """A checked request for a new session; durations in seconds."""

    kind: int
    start_url: str
    idle_timeout: float
    max_life: float
    labels: Mapping[str, str]
    profile: str = ""  # the id of the profile the browser starts from ("" for none)


def check_create(
    kind: int,
    start_url: str,
    durations: tuple[duration_pb2.Duration | None, duration_pb2.Duration | None],
    labels: Mapping[str, str],
    profile: str,
    settings: SessionSettings,
) -> SessionSpec:
    """`durations`: (idle timeout, maximum life) as the caller set them, None when unset."""
    violations: list[FieldViolation] = []
    if profile and kind == run_pb2.RUN_KIND_RESEARCH:
        violations.append(FieldViolation("profile", "only a browser session starts from a profile"))
    if kind not in KINDS:
        violations.append(FieldViolation("kind", "must be RUN_KIND_AUTOMATE or RUN_KIND_RESEARCH"))
    violations.extend(validation.http_url_violations(start_url, "start_url"))
    if start_url and kind == run_pb2.RUN_KIND_RESEARCH:
        violations.append(FieldViolation("start_url", "only a browser session opens a page"))
    max_life = _seconds(durations[1], "max_life", settings.max_life, settings.longest_life)
    longest_idle = max_life if isinstance(max_life, float) else settings.longest_life
    idle = _seconds(durations[0], "idle_timeout", settings.idle_timeout, longest_idle)
    violations.extend(v for v in (max_life, idle) if isinstance(v, FieldViolation))
    if violations:
        raise InvalidArgument(violations)
    validation.check_labels(labels)
    profile_id = parse_profile_name(profile, "profile") if profile else ""
    assert isinstance(max_life, float) and isinstance(idle, float)
    return SessionSpec(kind, start_url, idle, max_life, dict(labels), profile_id)


def _seconds(
    given: duration_pb2.Duration | None, field: str, default: float, longest: float
) -> float | FieldViolation:
    """The duration asked for (the default, within `longest`, when unset), or its violation."""
    if given is None:
        return min(default, longest)
    if given.nanos and (given.seconds < 0) != (given.nanos < 0):
        return FieldViolation(field, "seconds and nanos must have the same sign")
    seconds = given.ToNanoseconds() / 1e9
    if not SHORTEST <= seconds <= longest:
        return FieldViolation(
            field, f"must be between {SHORTEST:g} s and {longest:g} s, got {seconds:g} s"
        )
    return seconds
