"""Interactions in PostgreSQL: their messages, and what is kept of their answers and attempts
(`answer_records`). Writes are queued behind and fenced by the run's owner like events: a
replica that lost the run cannot resolve, reopen or relabel the new owner's questions."""

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
from outrider.server.core.storage.postgres.connection import PostgresConnection
from outrider.server.core.storage.postgres.presence import OWNED, OWNED_OR_ORPHANED
from outrider.server.core.storage.postgres.writes import Write
from outrider.server.core.storage.rows import decoded, interaction_values, interactions_from_rows
from outrider.v1 import interaction_pb2

# A dead owner's questions are anyone's to close (a run that ended just before its process died
# may have left one pending); a replay is fenced strictly (see PostgresStore.save_run).
_SAVE = SAVE.format(fence=f" WHERE {OWNED_OR_ORPHANED}") + " RETURNING 1"
_SAVE_AGAIN = SAVE.format(fence=f" WHERE {OWNED}") + " RETURNING 1"


class PostgresInteractions(PostgresConnection):
    def save_interaction(
        self,
        interaction: interaction_pb2.Interaction,
        ids: tuple[str, str],
        digest: bytes | None = None,
    ) -> None:
        values = (*interaction_values(interaction, ids), digest, *self._fence(ids[1]))
        self._writer.put(Write(_SAVE, values, fenced=ids[1], replay=_SAVE_AGAIN))

    def answer_record(self, interaction_id: str) -> AnswerRecord | None:
        rows = self._rows(RECORD, (interaction_id,))
        return record_of(rows[0]) if rows else None

    def lose_interactions(self, run_id: str) -> None:
        sql = LOSE.format(fence=f" AND {OWNED}")
        self._writer.put(Write(sql, (run_id, *self._fence(run_id)), run_id=run_id))

    def lost_interactions(
        self, run_id: str
    ) -> list[tuple[interaction_pb2.Interaction, AnswerRecord]]:
        return lost_from_rows(self._rows(LOST, (run_id,)))

    def asked_again(self, ids: tuple[str, str], again_id: str) -> None:
        sql = ASKED_AGAIN.format(fence=f" AND {OWNED}")
        params = (again_id, ids[0], *self._fence(ids[1]))
        self._writer.put(Write(sql, params, run_id=ids[1]))

    def get_interaction(
        self, interaction_id: str, tenant: str | None = None
    ) -> interaction_pb2.Interaction | None:
        rows = self._rows(
            "SELECT i.body FROM interactions i JOIN runs r ON r.id = i.run_id "
            "WHERE i.id = %s AND (%s::text IS NULL OR r.tenant = %s)",
            (interaction_id, tenant, tenant),
        )
        return decoded(interaction_pb2.Interaction, rows[0][0], interaction_id) if rows else None

    def list_interactions(
        self,
        run_id: str | None,
        states: Sequence[int],
        limit: int,
        after: tuple[int, str] | None,
        tenant: str | None = None,
    ) -> list[interaction_pb2.Interaction]:
        """Interactions oldest first, strictly newer than the (create_us, id) cursor when given."""
        clauses = ["i.state = ANY(%s)"]
        params: list[Any] = [list(states)]
        if run_id is not None:
            clauses.append("i.run_id = %s")
            params.append(run_id)
        if after is not None:
            clauses.append("(i.create_us, i.id) > (%s, %s)")
            params.extend(after)
        if tenant is not None:
            clauses.append("r.tenant = %s")
            params.append(tenant)
        rows = self._rows(
            "SELECT i.id, i.body FROM interactions i JOIN runs r ON r.id = i.run_id "
            f"WHERE {' AND '.join(clauses)} ORDER BY i.create_us, i.id LIMIT %s",
            [*params, limit],
        )
        return interactions_from_rows(rows)
