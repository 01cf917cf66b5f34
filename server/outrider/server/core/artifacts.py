"""Artifacts (screenshots, downloads): bytes in files under the data dir, metadata in SQLite.
Callers read only the artifacts of their own tenant's runs."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

from outrider.server.core.errors import InvalidArgument, NotFound, OutOfRange
from outrider.server.core.names import artifact_name, new_id
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.storage import Store

MAX_CHUNK = 1024 * 1024
DEFAULT_CHUNK = 256 * 1024


class ArtifactStore:
    def __init__(self, root: Path, store: Store) -> None:
        self._root = root
        self._store = store

    def save(self, run_id: str, data: bytes, content_type: str) -> str:
        """Writes the bytes atomically and returns the artifact's resource name."""
        artifact_id = new_id()
        folder = self._root / run_id
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{artifact_id}.partial"
        partial.write_bytes(data)
        os.replace(partial, folder / artifact_id)
        self._store.save_artifact((run_id, artifact_id), content_type, len(data))
        return artifact_name(run_id, artifact_id)

    async def remove_run(self, run_id: str) -> int:
        """Deletes the run's artifact files (in a thread: a slow disk must not stall the loop);
        returns the bytes freed."""
        return await asyncio.to_thread(_remove_folder, self._root / run_id)

    def run_folders(self) -> list[str]:
        """Run ids that have an artifact folder (to find folders a crash left behind)."""
        if not self._root.is_dir():
            return []
        return [entry.name for entry in self._root.iterdir() if entry.is_dir()]

    def describe(self, run_id: str, artifact_id: str, principal: Principal) -> tuple[str, int]:
        """(content type, size); NOT_FOUND for another tenant's artifact as for a missing one."""
        principal.require(Scope.RUNS_READ)
        found = self._store.get_artifact(run_id, artifact_id, principal.tenant_filter)
        if found is None:
            raise NotFound(f"{artifact_name(run_id, artifact_id)} does not exist")
        return found

    async def read(
        self, run_id: str, artifact_id: str, offset: int, chunk_size: int, principal: Principal
    ) -> AsyncIterator[tuple[int, bytes]]:
        """(offset, bytes) chunks from `offset` to the end."""
        _, size = self.describe(run_id, artifact_id, principal)
        chunk = _chunk_size(chunk_size)
        if offset < 0 or offset > size:
            raise OutOfRange(f"offset {offset} is outside the artifact's {size} bytes")
        path = self._root / run_id / artifact_id
        while offset < size or size == 0:
            data = await asyncio.to_thread(_read_at, path, offset, chunk)
            yield offset, data
            offset += len(data)
            if not data:
                return


def _chunk_size(requested: int) -> int:
    if requested < 0 or requested > MAX_CHUNK:
        raise InvalidArgument.single("chunk_size", f"must be between 0 and {MAX_CHUNK}")
    return requested or DEFAULT_CHUNK


def _read_at(path: Path, offset: int, size: int) -> bytes:
    with path.open("rb") as handle:
        handle.seek(offset)
        return handle.read(size)


def _remove_folder(folder: Path) -> int:
    freed = 0
    if not folder.is_dir():
        return 0
    for entry in folder.iterdir():
        with contextlib.suppress(FileNotFoundError):
            freed += entry.stat().st_size
            entry.unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()
    return freed
