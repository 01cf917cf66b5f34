"""Artifact bytes in PostgreSQL: rows of `artifact_chunks`, fixed-size slices of each artifact,
so a ranged read fetches only the slices it covers and no row grows past what one round trip
should carry. Written through the write-behind queue like events (the event loop never waits on
the network), fenced by the run's owner like them, chunks before the metadata row: a replica
that can see an artifact's row can read all of its bytes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from outrider.server.core.storage.postgres.presence import OWNED
from outrider.server.core.storage.postgres.writes import Write

CHUNK_BYTES = 256 * 1024  # ReadArtifact's default chunk: one row per default read

# Fenced like an event insert: once another live process took the run over, not written.
_CHUNK = (
    "INSERT INTO artifact_chunks (run_id, artifact_id, chunk, data) "
    f"SELECT %s, %s, %s, %s WHERE {OWNED} ON CONFLICT DO NOTHING"
)
_ROW = (
    "INSERT INTO artifacts (run_id, id, content_type, size) "
    f"SELECT %s, %s, %s, %s WHERE {OWNED} ON CONFLICT DO NOTHING"
)
SELECT_CHUNKS = (
    "SELECT chunk, data FROM artifact_chunks WHERE run_id = %s AND artifact_id = %s "
    "AND chunk BETWEEN %s AND %s ORDER BY chunk"
)


def artifact_writes(
    ids: tuple[str, str], content_type: str, data: bytes, fence: tuple[str, int, int | None]
) -> Iterator[Write]:
    """The queued writes of one artifact: its chunks, then its metadata row (`fence`: the
    parameters of `presence.OWNED`)."""
    run_id, artifact_id = ids
    view = memoryview(data)
    for index, start in enumerate(range(0, len(data), CHUNK_BYTES)):
        piece = bytes(view[start : start + CHUNK_BYTES])
        yield Write(
            _CHUNK,
            (run_id, artifact_id, index, piece, *fence),
            weight=len(piece),
            run_id=run_id,
        )
    yield Write(_ROW, (run_id, artifact_id, content_type, len(data), *fence), run_id=run_id)


def chunk_range(offset: int, size: int) -> tuple[int, int]:
    """The first and last chunk numbers holding bytes [offset, offset + size)."""
    return offset // CHUNK_BYTES, (offset + size - 1) // CHUNK_BYTES


def slice_of(rows: Sequence[tuple[Any, ...]], offset: int, size: int) -> bytes:
    """Bytes [offset, offset + size) of the chunk rows (chunk, data) read for them; stops at a
    missing chunk rather than joining across it."""
    first, _ = chunk_range(offset, size)
    pieces: list[bytes] = []
    for expected, (chunk, data) in enumerate(rows, start=first):
        if chunk != expected:
            break
        pieces.append(bytes(data))
    start = offset - first * CHUNK_BYTES
    return b"".join(pieces)[start : start + size]
