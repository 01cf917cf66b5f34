"""Checkpoints: where a run's agent was, kept in the store as named JSON parts per run, so a
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

from outrider.server.core.secrets.redaction import Redactor
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

    @property
    def wanted(self) -> bool:
        """Whether `save` saves anything (an agent may skip building a checkpoint when not)."""
        return self._wanted and not self._redactor

    def save(self, parts: dict[str, Any]) -> None:
        """Replaces these parts of the run's checkpoint (part name -> JSON-serialisable body;
        the others are kept), in this order; nothing is saved for a run that knows a secret, or
        that no other process could resume."""
        if not self.wanted:
            return
        for part, body in parts.items():
            self._store.save_checkpoint(self._run_id, part, json.dumps(body, separators=(",", ":")))

    def resume_point(self) -> dict[str, Any] | None:
        """The checkpoint the lost executor left (part name -> body), when this process took the
        run over; None for a run started here, or when it left none (or a part does not parse).
        """
        if not self.resumed:
            return None
        stored = self._store.load_checkpoint(self._run_id)
        if not stored:
            return None
        try:
            return {part: json.loads(body) for part, body in stored.items()}
        except ValueError as error:
            log.error("checkpoint of runs/%s unreadable, starting over: %s", self._run_id, error)
            return None
