"""Identifiers and resource names: runs/{id}, interactions/{id}, runs/{id}/artifacts/{id},
sessions/{id}."""

from __future__ import annotations

import re
import secrets
import time

from outrider.server.core.errors import InvalidArgument, NotFound, quoted

_ID = r"[0-9a-z]{8,64}"
# Patterns are matched with fullmatch: `$` would also accept a trailing newline.
_RUN = re.compile(rf"runs/({_ID})")
_INTERACTION = re.compile(rf"(?:interactions/)?({_ID})")
_ARTIFACT = re.compile(rf"runs/({_ID})/artifacts/({_ID})")
_SESSION = re.compile(rf"sessions/({_ID})")


def new_id() -> str:
    """A time-ordered id: 12 hex digits of milliseconds, then 12 random hex digits."""
    return f"{time.time_ns() // 1_000_000:012x}{secrets.token_hex(6)}"


def run_name(run_id: str) -> str:
    return f"runs/{run_id}"


def run_id_from(name: str) -> str:
    """The id in a run's name (`run_name`'s inverse, for names the server made)."""
    return name.removeprefix("runs/")


def session_name(session_id: str) -> str:
    return f"sessions/{session_id}"


def session_id_from(name: str) -> str:
    """The id in a session's name (`session_name`'s inverse, for names the server made)."""
    return name.removeprefix("sessions/")


def interaction_name(interaction_id: str) -> str:
    return f"interactions/{interaction_id}"


def artifact_name(run_id: str, artifact_id: str) -> str:
    return f"runs/{run_id}/artifacts/{artifact_id}"


def parse_run_name(name: str, field: str = "name") -> str:
    match = _RUN.fullmatch(name)
    if not match:
        raise InvalidArgument.single(field, f"must look like runs/{{run_id}}, got {quoted(name)}")
    return match.group(1)


def parse_session_name(name: str, field: str = "name") -> str:
    match = _SESSION.fullmatch(name)
    if not match:
        raise InvalidArgument.single(
            field, f"must look like sessions/{{session_id}}, got {quoted(name)}"
        )
    return match.group(1)


def parse_interaction_name(name: str, field: str = "name") -> str:
    """Accepts "interactions/{id}" or the bare id that events carry as request_id/approval_id."""
    match = _INTERACTION.fullmatch(name)
    if not match:
        raise InvalidArgument.single(
            field, f"must look like interactions/{{interaction_id}}, got {quoted(name)}"
        )
    return match.group(1)


def parse_artifact_name(name: str, field: str = "name") -> tuple[str, str]:
    match = _ARTIFACT.fullmatch(name)
    if not match:
        raise InvalidArgument.single(
            field, f"must look like runs/{{run_id}}/artifacts/{{artifact_id}}, got {quoted(name)}"
        )
    return match.group(1), match.group(2)


# An id in a URL path (REST, console): one that cannot exist is "not found", as a missing one is.


def run_id_in_path(value: str) -> str:
    if _RUN.fullmatch(f"runs/{value}") is None:
        raise NotFound(f"runs/{quoted(value)} does not exist")
    return value


def session_id_in_path(value: str) -> str:
    if _SESSION.fullmatch(f"sessions/{value}") is None:
        raise NotFound(f"sessions/{quoted(value)} does not exist")
    return value


def artifact_id_in_path(run_id: str, value: str) -> str:
    if _ARTIFACT.fullmatch(f"runs/{run_id}/artifacts/{value}") is None:
        raise NotFound(f"runs/{run_id}/artifacts/{quoted(value)} does not exist")
    return value


def interaction_id_in_path(value: str) -> str:
    """Also "interactions/{id}", as parse_interaction_name accepts."""
    match = _INTERACTION.fullmatch(value)
    if match is None:
        raise NotFound(f"interactions/{quoted(value)} does not exist")
    return match.group(1)
