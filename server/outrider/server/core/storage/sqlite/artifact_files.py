"""Artifact bytes as files (`<artifacts dir>/<run id>/<artifact id>`), the SQLite store's way of
keeping them: one machine owns the data directory, and the file system streams large bytes
without growing the database file or holding its write lock. PostgreSQL keeps them in the
database instead (`storage.postgres.chunks`), where every replica reads them."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


class ArtifactFiles:
    def __init__(self, root: Path) -> None:
        self._root = root

    def write(self, run_id: str, artifact_id: str, data: bytes) -> None:
        """Writes atomically: a reader sees all of the bytes or no file."""
        folder = self._root / run_id
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{artifact_id}.partial"
        partial.write_bytes(data)
        os.replace(partial, folder / artifact_id)

    def read(self, run_id: str, artifact_id: str, offset: int, size: int) -> bytes:
        """Up to `size` bytes from `offset`; b"" when the file is gone (its run was deleted)."""
        try:
            with (self._root / run_id / artifact_id).open("rb") as handle:
                handle.seek(offset)
                return handle.read(size)
        except FileNotFoundError:
            return b""

    def remove_run(self, run_id: str) -> None:
        folder = self._root / run_id
        if not folder.is_dir():
            return
        for entry in folder.iterdir():
            with contextlib.suppress(FileNotFoundError):
                entry.unlink()
        with contextlib.suppress(OSError):
            folder.rmdir()

    def run_ids(self) -> list[str]:
        """Run ids that have an artifact folder."""
        if not self._root.is_dir():
            return []
        return [entry.name for entry in self._root.iterdir() if entry.is_dir()]
