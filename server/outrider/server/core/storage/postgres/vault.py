"""The vault's part of the PostgreSQL store (`vault_sql`): every statement at once on a pooled
connection, after this process's queued writes (not written behind: a save's version check, a
lease and an audit row are answered, and committed, before the run goes on)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from outrider.server.core.storage.postgres.connection import PostgresConnection
from outrider.server.core.storage.vault_sql import VaultSql


class PostgresVault(PostgresConnection, VaultSql):
    def _vault_rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        return self._rows(sql, params)
