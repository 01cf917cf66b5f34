"""Artifacts in the SQLite store: a row each, the bytes a file beside the database
(`artifact_files`): one machine owns both."""

from __future__ import annotations

from outrider.server.core.storage.sqlite.connection import SqliteConnection


class SqliteArtifacts(SqliteConnection):
    def save_artifact(self, ids: tuple[str, str], content_type: str, data: bytes) -> None:
        """The file first, then its row: a row always has its bytes."""
        self._files.write(*ids, data)
        self._write(
            "INSERT INTO artifacts (run_id, id, content_type, size) VALUES (?, ?, ?, ?)",
            (*ids, content_type, len(data)),
        )

    def read_artifact(self, ids: tuple[str, str], offset: int, size: int) -> bytes:
        return self._files.read(*ids, offset, size)  # the file only: safe off the loop's thread

    def forget_artifacts(self, run_id: str) -> None:
        self._files.remove_run(run_id)

    def leftover_artifacts(self) -> list[str]:
        found = self._files.run_ids()
        kept: set[str] = set()
        for start in range(0, len(found), 500):  # within SQLite's limit of bound values
            batch = found[start : start + 500]
            marks = ",".join("?" * len(batch))
            rows = self._conn.execute(f"SELECT id FROM runs WHERE id IN ({marks})", batch)
            kept.update(row[0] for row in rows)
        return [run_id for run_id in found if run_id not in kept]

    def get_artifact(
        self, run_id: str, artifact_id: str, tenant: str | None = None
    ) -> tuple[str, int] | None:
        row = self._conn.execute(
            "SELECT a.content_type, a.size FROM artifacts a JOIN runs r ON r.id = a.run_id "
            "WHERE a.run_id = ? AND a.id = ? AND (? IS NULL OR r.tenant = ?)",
            (run_id, artifact_id, tenant, tenant),
        ).fetchone()
        return (row[0], row[1]) if row else None

    def artifact_bytes(self) -> int:
        """Bytes of every artifact of every run."""
        row = self._conn.execute("SELECT COALESCE(SUM(size), 0) FROM artifacts").fetchone()
        return int(row[0])
