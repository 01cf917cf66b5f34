"""Checkpoints: where a run's agent was, kept in the store as one JSON object per run, so a
process that takes the run over after its replica was lost continues from there rather than
from the start. The agent decides what a checkpoint holds and when to save one (research saves
one at each phase boundary); the core keeps it while the run is active and drops it when the
run ends (and with the run, when it is deleted).

A run that knows a secret (secret data, a caller's form answer) saves none: a checkpoint is
stored, and secrets live only in the executing process's memory. Such runs are ended rather
than resumed on failover anyway. Nor does a run save one where no other process could take it
over (a SQLite store, or OUTRIDER_FAILOVER_RESUMES=0): it would be written and never read.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from outrider.server.core.redaction import Redactor
from outrider.server.core.storage import Store

log = logging.getLogger(__name__)


class Checkpoints:
    """The checkpoints of one run. `resumed`: this process took the run over from another;
    `wanted`: another process could take it over (resume it) were this one lost."""

    def __init__(
        self, store: Store, run_id: str, redactor: Redactor, resumed: bool, wanted: bool
    ) -> None:
        self._store = store
        self._run_id = run_id
        self._redactor = redactor
        self.resumed = resumed
        self._wanted = wanted

    def save(self, body: dict[str, Any]) -> None:
        """Replaces the run's checkpoint with `body` (JSON-serialisable); nothing is saved for
        a run that knows a secret, or that no other process could resume."""
        if not self._wanted or self._redactor:
            return
        self._store.save_checkpoint(self._run_id, json.dumps(body, separators=(",", ":")))

    def resume_point(self) -> dict[str, Any] | None:
        """The checkpoint the lost executor left, when this process took the run over; None for
        a run started here, or when it left none (or one that does not parse)."""
        if not self.resumed:
            return None
        body = self._store.load_checkpoint(self._run_id)
        if body is None:
            return None
        try:
            loaded = json.loads(body)
        except ValueError as error:
            log.error("checkpoint of runs/%s unreadable, starting over: %s", self._run_id, error)
            return None
        return loaded if isinstance(loaded, dict) else None
