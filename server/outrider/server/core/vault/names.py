"""Names of the vault's resources: profiles/{profile_id} and credentials/{credential_id}, ids
chosen by the caller and unique in its tenant."""

from __future__ import annotations

import re

from outrider.server.core.errors import InvalidArgument, NotFound, quoted

_ID = r"[a-z0-9][a-z0-9_-]{0,62}"
_ID_RULE = "1 to 63 of a-z, 0-9, '-', '_', starting with a letter or digit"
_PROFILE = re.compile(rf"profiles/({_ID})")
_CREDENTIAL = re.compile(rf"credentials/({_ID})")


def profile_name(profile_id: str) -> str:
    return f"profiles/{profile_id}"


def credential_name(credential_id: str) -> str:
    return f"credentials/{credential_id}"


def check_id(value: str, field: str) -> str:
    if re.fullmatch(_ID, value) is None:
        raise InvalidArgument.single(field, f"must be {_ID_RULE}, got {quoted(value)}")
    return value


def parse_profile_name(name: str, field: str = "name") -> str:
    match = _PROFILE.fullmatch(name)
    if match is None:
        raise InvalidArgument.single(
            field, f"must look like profiles/{{profile_id}} ({_ID_RULE}), got {quoted(name)}"
        )
    return match.group(1)


def parse_credential_name(name: str, field: str = "name") -> str:
    match = _CREDENTIAL.fullmatch(name)
    if match is None:
        raise InvalidArgument.single(
            field,
            f"must look like credentials/{{credential_id}} ({_ID_RULE}), got {quoted(name)}",
        )
    return match.group(1)


def id_in_path(value: str, kind: str) -> str:
    """An id in a URL path (REST, console): one that cannot exist is "not found"."""
    if re.fullmatch(_ID, value) is None:
        raise NotFound(f"{kind}/{quoted(value)} does not exist")
    return value
