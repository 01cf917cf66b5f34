"""Interactions in SQLite: their messages, and what is kept of their answers and attempts
(`answer_records`). One process owns the file, so nothing fences the writes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from outrider.server.core.storage.answer_records import (
    ASKED_AGAIN,
    LOSE,
    LOST,
    RECORD,
    SAVE,
    lost_from_rows,
    record_of,
)
from outrider.server.core.storage.contract import AnswerRecord
from outrider.server.core.storage.rows import decoded, interaction_values, interactions_from_rows
from outrider.server.core.storage.sqlite.connection import SqliteConnection
from outrider.server.core.storage.start_keys import for_sqlite
from outrider.v1 import interaction_pb2

# SQLite reads "SELECT ... ON CONFLICT" as a join unless the SELECT has a WHERE clause.
_SAVE = for_sqlite(SAVE.format(fence=" WHERE TRUE"))


class SqliteInteractions(SqliteConnection):
    def save_interaction(
        self,
        interaction: interaction_pb2.Interaction,
        ids: tuple[str, str],
        digest: bytes | None = None,
    ) -> None:
        self._write(_SAVE, (*interaction_values(interaction, ids), digest))

    def answer_record(self, interaction_id: str) -> AnswerRecord | None:
        row = self._conn.execute(for_sqlite(RECORD), (interaction_id,)).fetchone()
        return record_of(row) if row else None

    def lose_interactions(self, run_id: str) -> None:
        self._write(for_sqlite(LOSE.format(fence="")), (run_id,))

    def lost_interactions(
        self, run_id: str
    ) -> list[tuple[interaction_pb2.Interaction, AnswerRecord]]:
        return lost_from_rows(self._conn.execute(for_sqlite(LOST), (run_id,)).fetchall())

    def asked_again(self, ids: tuple[str, str], again_id: str) -> None:
        self._write(for_sqlite(ASKED_AGAIN.format(fence="")), (again_id, ids[0]))

    def get_interaction(
        self, interaction_id: str, tenant: str | None = None
    ) -> interaction_pb2.Interaction | None:
        row = self._conn.execute(
            "SELECT i.body FROM interactions i JOIN runs r ON r.id = i.run_id "
            "WHERE i.id = ? AND (? IS NULL OR r.tenant = ?)",
            (interaction_id, tenant, tenant),
        ).fetchone()
        return decoded(interaction_pb2.Interaction, row[0], interaction_id) if row else None

    def list_interactions(
        self,
        run_id: str | None,
        states: Sequence[int],
        limit: int,
        after: tuple[int, str] | None,
        tenant: str | None = None,
    ) -> list[interaction_pb2.Interaction]:
        """Interactions oldest first, strictly newer than the (create_us, id) cursor when given."""
        clauses = [f"i.state IN ({','.join('?' * len(states))})"]
        params: list[Any] = list(states)
        if run_id is not None:
            clauses.append("i.run_id = ?")
            params.append(run_id)
        if after is not None:
            clauses.append("(i.create_us, i.id) > (?, ?)")
            params.extend(after)
        if tenant is not None:
            clauses.append("r.tenant = ?")
            params.append(tenant)
        rows = self._conn.execute(
            "SELECT i.id, i.body FROM interactions i JOIN runs r ON r.id = i.run_id "
            f"WHERE {' AND '.join(clauses)} ORDER BY i.create_us, i.id LIMIT ?",
            [*params, limit],
        )
        return interactions_from_rows(rows)
