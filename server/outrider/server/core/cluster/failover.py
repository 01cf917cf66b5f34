"""Replicas sharing a PostgreSQL store watch for each other's loss: every interval, each takes
over the runs a dead replica left active, and resumes them (OUTRIDER_FAILOVER_RESUMES) or ends
them (failed, `SERVER_RESTARTED`, with terminal events), so no run stays running with nobody
executing it while the other replicas live on. A run is taken over only when it was nobody's at
two sweeps in a row, so a replica that lost its session to a database restart has one interval
to take its presence lock back."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping

from outrider.server.core.background import BackgroundTask
from outrider.server.core.errors import Unavailable

log = logging.getLogger(__name__)

# A run nobody executes, as a sweep sees it: its id and its owner generation (a run claimed since,
# even by a replica that is gone again, is another orphan: its two sweeps begin again).
OrphanKey = tuple[str, int]
# One sweep (runs/adoption.py): given the orphans seen before (-> sweeps in a row), how many
# runs it took over and the orphans seen now.
Sweep = Callable[[Mapping[OrphanKey, int]], tuple[int, dict[OrphanKey, int]]]


class FailoverSweeper(BackgroundTask):
    """`start()` sweeps every `interval` seconds; `stop()` (idempotent) ends it."""

    def __init__(self, sweep: Sweep, interval: float) -> None:
        super().__init__("outrider-failover", self._every_interval)
        self._sweep = sweep
        self._interval = interval

    async def _every_interval(self) -> None:
        seen: dict[OrphanKey, int] = {}  # -> sweeps in a row it has been nobody's
        while True:
            await asyncio.sleep(self._interval)
            try:
                closed, seen = self._sweep(seen)
            except Unavailable as error:  # the store is unreachable: nobody is judged meanwhile
                log.info("failover sweep skipped: %s", error.message)
                seen = {}
                continue
            except Exception:  # a store hiccup must not end the sweeping; the next pass retries
                log.exception("failover sweep failed")
                seen = {}
                continue
            if closed:
                left = len(seen) - closed
                log.warning(
                    "took over %d runs left active by a replica that is gone (%d left for "
                    "other replicas)",
                    closed,
                    max(left, 0),
                )
