"""Checks of what callers give the vault: a profile's check, a credential's origins and parts,
and the vault options of a run. Violations name fields in the caller's terms."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from outrider.server.core.errors import FieldViolation, InvalidArgument
from outrider.server.core.validation import http_url_violations
from outrider.server.core.vault.names import parse_credential_name, parse_profile_name
from outrider.v1 import params_pb2, profile_pb2

MAX_CHECK_TEXT = 200
MAX_ORIGINS = 20
MAX_RUN_CREDENTIALS = 20
MAX_SECRET_CHARS = 4096


def checked_profile_check(check: profile_pb2.ProfileCheck, field: str) -> None:
    violations = http_url_violations(check.url, f"{field}.url")
    if bool(check.url) != bool(check.text):
        violations.append(FieldViolation(field, "give both url and text, or neither"))
    if len(check.text) > MAX_CHECK_TEXT or not check.text.isprintable():
        violations.append(
            FieldViolation(f"{field}.text", f"must be printable, at most {MAX_CHECK_TEXT} chars")
        )
    if violations:
        raise InvalidArgument(violations)


def origin_of(url: str) -> str:
    """scheme://host[:port] of a URL, lower-cased, default ports left out ("" when none)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return ""
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return ""
    default = {"http": 80, "https": 443}[parts.scheme]
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    shown_port = f":{port}" if port is not None and port != default else ""
    return f"{parts.scheme}://{host.lower()}{shown_port}"


def checked_origins(origins: Sequence[str], field: str) -> tuple[str, ...]:
    """Each an exact origin (no path, query, user or wildcard), normalised; 1 to MAX_ORIGINS."""
    if not 1 <= len(origins) <= MAX_ORIGINS:
        raise InvalidArgument.single(field, f"must list 1 to {MAX_ORIGINS} origins")
    violations = [
        FieldViolation(f"{field}[{n}]", "must be an origin like https://app.example.com")
        for n, origin in enumerate(origins)
        if not _is_origin(origin)
    ]
    if violations:
        raise InvalidArgument(violations)
    return tuple(dict.fromkeys(origin_of(origin) for origin in origins))


def _is_origin(text: str) -> bool:
    if not origin_of(text) or "*" in text or "@" in text:
        return False
    parts = urlsplit(text)
    return parts.path in ("", "/") and not parts.query and not parts.fragment


SAVING = (profile_pb2.PROFILE_SAVE_ON_SUCCESS, profile_pb2.PROFILE_SAVE_ALWAYS)


def saves_to_session(options: params_pb2.RunOptions) -> bool:
    """Whether a run saves to the profile its session started from (it names none itself)."""
    return bool(options.session) and not options.profile and options.profile_save in SAVING


def check_vault_options(
    options: params_pb2.RunOptions, prefix: str, browser_run: bool, session_profile: str = ""
) -> tuple[str, list[str]]:
    """The id of the profile the run loads or saves to ("" when none) and the credential ids
    its options name; `session_profile`: the name of the profile the run's session started
    from, when the run saves to it ("" otherwise)."""
    violations: list[FieldViolation] = []
    names_any = bool(options.profile or options.credentials or options.by_hand)
    if names_any and not browser_run:
        raise InvalidArgument.single(
            f"{prefix}profile", "profiles, credentials and by_hand are for browser runs only"
        )
    if options.profile_save not in profile_pb2.ProfileSave.values():
        violations.append(
            FieldViolation(f"{prefix}profile_save", "must be never, on_success or always")
        )
    if options.profile and options.session:
        violations.append(
            FieldViolation(
                f"{prefix}profile",
                "a run in a session uses the session's browser: name the profile when creating "
                "the session",
            )
        )
    if options.profile_save in SAVING and not options.profile:
        violations.extend(_nowhere_to_save(options, prefix, session_profile))
    if len(options.credentials) > MAX_RUN_CREDENTIALS:
        violations.append(
            FieldViolation(f"{prefix}credentials", f"must name at most {MAX_RUN_CREDENTIALS}")
        )
    if violations:
        raise InvalidArgument(violations)
    named = options.profile or session_profile
    profile = parse_profile_name(named, f"{prefix}profile") if named else ""
    credentials = [
        parse_credential_name(name, f"{prefix}credentials[{n}]")
        for n, name in enumerate(options.credentials)
    ]
    return profile, list(dict.fromkeys(credentials))


def _nowhere_to_save(
    options: params_pb2.RunOptions, prefix: str, session_profile: str
) -> list[FieldViolation]:
    """A run that saves without naming a profile saves to its session's, if it has one."""
    if not options.session:
        return [FieldViolation(f"{prefix}profile_save", "needs a profile to save to")]
    if not session_profile:
        return [
            FieldViolation(
                f"{prefix}profile_save",
                "the session has no profile to save to (a session saves to the profile it was "
                "created from: CreateSessionRequest.profile)",
            )
        ]
    return []
