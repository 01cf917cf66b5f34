"""The SQL of what the store keeps of interactions besides their messages (`AnswerRecord`), shared
by both backends (`%s` placeholders; `start_keys.for_sqlite` turns them into SQLite's). The
PostgreSQL backend adds its owner fence to the writes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from outrider.server.core.storage.contract import AnswerRecord
from outrider.server.core.storage.rows import decoded
from outrider.v1 import interaction_pb2

# The interaction's message, state and (for the first time given) the digest of its answer.
SAVE = (
    "INSERT INTO interactions AS i (id, run_id, state, create_us, body, answer_digest) "
    "SELECT %s, %s, %s, %s, %s, %s{fence} ON CONFLICT (id) DO UPDATE SET state = excluded.state, "
    "body = excluded.body, answer_digest = COALESCE(i.answer_digest, excluded.answer_digest)"
)
RECORD = "SELECT answer_digest, lost, asked_again_as FROM interactions WHERE id = %s"
LOSE = "UPDATE interactions SET lost = TRUE WHERE run_id = %s AND NOT lost{fence}"
LOST = (
    "SELECT id, body, answer_digest, lost, asked_again_as FROM interactions "
    "WHERE run_id = %s AND lost AND asked_again_as IS NULL ORDER BY create_us, id"
)
ASKED_AGAIN = "UPDATE interactions SET asked_again_as = %s WHERE id = %s{fence}"


def record_of(row: Iterable[Any]) -> AnswerRecord:
    """An AnswerRecord from (answer_digest, lost, asked_again_as)."""
    digest, lost, again = row
    return AnswerRecord(bytes(digest) if digest is not None else None, bool(lost), again or "")


def lost_from_rows(
    rows: Iterable[tuple[Any, ...]],
) -> list[tuple[interaction_pb2.Interaction, AnswerRecord]]:
    """The interactions of LOST's rows that decode, with their records."""
    found = []
    for interaction_id, body, *record in rows:
        interaction = decoded(interaction_pb2.Interaction, bytes(body), interaction_id)
        if interaction is not None:
            found.append((interaction, record_of(record)))
    return found
