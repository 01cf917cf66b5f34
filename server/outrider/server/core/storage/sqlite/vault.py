"""The vault's part of the SQLite store (`vault_sql`): statements on the one connection, writes in
the loop iteration's transaction like every other write (visible to the next read at once)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from outrider.server.core.storage.sqlite.connection import SqliteConnection
from outrider.server.core.storage.start_keys import for_sqlite
from outrider.server.core.storage.vault_sql import VaultSql

_WRITES = ("INSERT", "UPDATE", "DELETE")


class SqliteVault(SqliteConnection, VaultSql):
    def _vault_rows(self, sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        if sql.startswith(_WRITES):
            self._begin_write()
        return list(self._conn.execute(for_sqlite(sql), params).fetchall())
