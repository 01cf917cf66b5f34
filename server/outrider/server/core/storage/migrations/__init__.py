"""Versioned schema migrations, one list per backend, applied in order at start (and by
`outrider migrate` ahead of a rollout). Each version is recorded in `schema_migrations` once
applied; versions are never edited after release, only added. A migration must leave the schema
usable by the previous release too (add, don't rename or drop), so replicas of both versions can
share one database during a rolling upgrade."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    """One schema change: its version, a name for humans, and its statements in order."""

    version: int
    name: str
    statements: tuple[str, ...]


def pending(migrations: tuple[Migration, ...], applied: set[int]) -> list[Migration]:
    """The migrations not applied yet, oldest first."""
    return sorted((m for m in migrations if m.version not in applied), key=lambda m: m.version)


def latest(migrations: tuple[Migration, ...]) -> int:
    return max(m.version for m in migrations)
