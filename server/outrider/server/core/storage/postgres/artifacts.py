"""Artifacts in PostgreSQL: their rows and their bytes (chunks, see `artifacts`), written behind
with a bounded backlog, read back in slices."""

from __future__ import annotations

from outrider.server.core.errors import Unavailable
from outrider.server.core.storage.postgres.chunks import (
    SELECT_CHUNKS,
    artifact_writes,
    chunk_range,
    slice_of,
)
from outrider.server.core.storage.postgres.connection import (
    PostgresConnection,
)


class PostgresArtifacts(PostgresConnection):
    def save_artifact(self, ids: tuple[str, str], content_type: str, data: bytes) -> None:
        """Queued behind; refused (Unavailable STORE_BACKLOG) while PostgreSQL is so far behind
        that the artifact bytes waiting in memory would pass `artifact_backlog` bytes."""
        if self._writer.backlog_bytes + len(data) > self._artifact_backlog:
            raise Unavailable(
                f"PostgreSQL is behind by {self._writer.backlog_bytes} artifact bytes; "
                "this artifact was not kept",
                reason="STORE_BACKLOG",
            )
        for write in artifact_writes(ids, content_type, data, self._fence(ids[0])):
            self._writer.put(write)

    def get_artifact(
        self, run_id: str, artifact_id: str, tenant: str | None = None
    ) -> tuple[str, int] | None:
        rows = self._rows(
            "SELECT a.content_type, a.size FROM artifacts a JOIN runs r ON r.id = a.run_id "
            "WHERE a.run_id = %s AND a.id = %s AND (%s::text IS NULL OR r.tenant = %s)",
            (run_id, artifact_id, tenant, tenant),
        )
        return (str(rows[0][0]), int(rows[0][1])) if rows else None

    def read_artifact(self, ids: tuple[str, str], offset: int, size: int) -> bytes:
        if size <= 0:
            return b""
        # binary: bytea as it is, not as hex text twice its size to encode and parse
        rows = self._rows(SELECT_CHUNKS, (*ids, *chunk_range(offset, size)), binary=True)
        return slice_of(rows, offset, size)

    def forget_artifacts(self, run_id: str) -> None:
        pass  # the bytes went with the run's rows (delete_run)

    def leftover_artifacts(self) -> list[str]:
        return []  # bytes and rows are deleted in one transaction

    def artifact_bytes(self) -> int:
        """Bytes of every artifact of every run."""
        return int(self._rows("SELECT COALESCE(SUM(size), 0) FROM artifacts", ())[0][0])
