"""The store behind the core: SQLite in the data directory by default, PostgreSQL when
OUTRIDER_DATABASE_URL names one. Both keep the `Store` contract of `contract`."""

from __future__ import annotations

from outrider.server.core.storage.contract import (
    ACTIVE_STATES,
    ActiveLimits,
    RunUsage,
    Store,
    WorkerLoad,
)
from outrider.server.settings import Settings

__all__ = [
    "ACTIVE_STATES",
    "ActiveLimits",
    "RunUsage",
    "Store",
    "WorkerLoad",
    "migrate",
    "open_store",
]


def open_store(settings: Settings) -> Store:
    """The configured store, its schema migrated to this version."""
    if settings.database_url:
        from outrider.server.core.storage.postgres.store import (
            PostgresStore,  # psycopg: only if used
        )

        return PostgresStore(settings.database_url, replay_seconds=settings.database_replay_window)
    from outrider.server.core.storage.sqlite.store import SqliteStore

    return SqliteStore(settings.database_path, settings.artifacts_dir)


def migrate(settings: Settings) -> tuple[str, list[int]]:
    """Applies pending migrations to the configured store without serving; returns where and
    which versions."""
    if settings.database_url:
        from outrider.server.core.storage.postgres.connection import apply_migrations

        return "PostgreSQL", apply_migrations(settings.database_url)
    from outrider.server.core.storage.sqlite.store import SqliteStore

    store = SqliteStore(settings.database_path, settings.artifacts_dir)
    store.close()
    return str(settings.database_path), store.applied_migrations
