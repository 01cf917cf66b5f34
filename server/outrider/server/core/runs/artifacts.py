"""Artifacts (screenshots, downloads), kept by the store: on SQLite as files under the data dir,
on PostgreSQL in the database, where every replica reads them. Callers read only the artifacts
of their own tenant's runs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from outrider.server.core.errors import InvalidArgument, NotFound, OutOfRange
from outrider.server.core.names import artifact_name, new_id
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.storage import Store

MAX_CHUNK = 1024 * 1024
DEFAULT_CHUNK = 256 * 1024


class ArtifactStore:
    def __init__(self, store: Store) -> None:
        self._store = store

    def save(self, run_id: str, data: bytes, content_type: str) -> str:
        """Keeps the bytes (see `Store.save_artifact`) and returns the artifact's resource name."""
        artifact_id = new_id()
        self._store.save_artifact((run_id, artifact_id), content_type, data)
        return artifact_name(run_id, artifact_id)

    async def remove_run(self, run_id: str) -> None:
        """Removes what of a deleted run's artifacts outlives its rows (in a thread: a slow disk
        must not stall the loop)."""
        await asyncio.to_thread(self._store.forget_artifacts, run_id)

    def leftovers(self) -> list[str]:
        """Ids of deleted runs whose artifact bytes a crash left behind."""
        return self._store.leftover_artifacts()

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
        """(offset, bytes) chunks from `offset` to the end, each read in a thread (a file, or
        rows of the database)."""
        _, size = self.describe(run_id, artifact_id, principal)
        chunk = _chunk_size(chunk_size)
        if offset < 0 or offset > size:
            raise OutOfRange(f"offset {offset} is outside the artifact's {size} bytes")
        ids = (run_id, artifact_id)
        while offset < size or size == 0:
            length = min(chunk, size - offset)
            data = await asyncio.to_thread(self._store.read_artifact, ids, offset, length)
            if len(data) < length:  # e.g. a file an earlier build wrote where no replica reads
                raise NotFound(
                    f"the bytes of {artifact_name(run_id, artifact_id)} after {offset + len(data)}"
                    " are not kept",
                    reason="ARTIFACT_BYTES_MISSING",
                )
            yield offset, data
            offset += len(data)
            if not data:
                return


def _chunk_size(requested: int) -> int:
    if requested < 0 or requested > MAX_CHUNK:
        raise InvalidArgument.single("chunk_size", f"must be between 0 and {MAX_CHUNK}")
    return requested or DEFAULT_CHUNK
