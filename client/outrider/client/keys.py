"""API keys for a key file (OUTRIDER_KEYS_FILE): make one, hash it, write its entry.

A key is 256 random bits; the file stores only "sha256:<hex>" of it, which the server compares.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from pathlib import Path

KEY_PREFIX = "ork_"
# The server's scopes (outrider.server.core.principals.Scope), in its order. The client package
# cannot import the server: tests/security/test_scope_table.py pins this copy to the server's.
SCOPES = (
    "runs.start",
    "runs.read",
    "interactions.answer",
    "runs.cancel",
    "runs.delete",
    "browser.control",
    "profiles.manage",
    "credentials.manage",
    "webhooks.manage",
    "admin",
)
ADMIN = "admin"
CALLER_SCOPES = tuple(scope for scope in SCOPES if scope != ADMIN)  # what a caller key gets


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_hash(key: str) -> str:
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()


def toml_entry(
    principal_id: str,
    tenant: str,
    scopes: Sequence[str],
    digest: str,
    limits: dict[str, float] | None = None,
) -> str:
    """One [[keys]] table (JSON strings are valid TOML basic strings)."""
    lines = [
        "[[keys]]",
        f"id = {json.dumps(principal_id)}",
        f"tenant = {json.dumps(tenant)}",
        f"scopes = [{', '.join(json.dumps(s) for s in scopes)}]",
        f"hash = {json.dumps(digest)}",
    ]
    if limits:
        inner = ", ".join(f"{name} = {value:g}" for name, value in limits.items())
        lines.append(f"limits = {{ {inner} }}")
    return "\n".join(lines) + "\n"


def append_key(
    path: Path,
    principal_id: str,
    tenant: str,
    scopes: Sequence[str],
    limits: dict[str, float] | None = None,
) -> str:
    """Creates a key, appends its hashed entry to the TOML file at `path`, and returns the key,
    which is stored nowhere."""
    key = new_key()
    entry = toml_entry(principal_id, tenant, scopes, key_hash(key), limits)
    existing = path.read_text() if path.exists() else ""
    separator = "\n" if existing and not existing.endswith("\n\n") else ""
    with path.open("a") as handle:
        handle.write(separator + entry)
    return key
