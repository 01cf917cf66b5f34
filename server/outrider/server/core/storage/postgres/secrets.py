"""Secrets every replica of one PostgreSQL database shares, made by the first replica that asks:
the signing key of page tokens, answer links and console sessions when OUTRIDER_PAGE_TOKEN_SECRET
is unset (replicas on PostgreSQL need not share a data directory, where SQLite keeps its key).
Whoever reads the database could forge these tokens, but could read every run already."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import Any

from outrider.server.core import clock

Rows = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]
_MAKE = (
    "INSERT INTO shared_secrets (name, value, create_us) VALUES (%s, %s, %s) "
    "ON CONFLICT (name) DO NOTHING RETURNING value"
)
_READ = "SELECT value FROM shared_secrets WHERE name = %s"


def shared_secret(rows: Rows, name: str) -> str:
    """The secret called `name`: this replica's new one if none was made yet, else the one made
    first (a concurrent maker loses the insert and reads the winner's)."""
    made = rows(_MAKE, (name, secrets.token_hex(32), clock.now_us()))
    found = made or rows(_READ, (name,))
    return str(found[0][0])
