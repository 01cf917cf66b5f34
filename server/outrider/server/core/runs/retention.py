"""Retention: a background sweep that purges finished runs past the age limit, then the oldest
finished runs while all artifacts together weigh more than the cap, and frees the request ids
(idempotency keys) of ended runs past their window.

It runs on the server's event loop in small batches (a yield between batches), deletes through
`RunManager.delete` like DeleteRun does, and never touches an active run. Active runs' artifacts
count towards the cap, so the cap is soft while they run: finished runs go first, active ones
only once they end. Ended sessions past the age limit go too (their runs on their own ages).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from outrider.server.core import clock
from outrider.server.core.background import BackgroundTask
from outrider.server.core.errors import FailedPrecondition, NotFound
from outrider.server.core.principals import SYSTEM
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.storage import RunUsage, Store
from outrider.server.core.vault.retention import forget_unused_profiles
from outrider.server.settings import Settings

log = logging.getLogger(__name__)

BATCH = 16


@dataclass(frozen=True)
class RetentionPolicy:
    max_age_s: float  # 0: no age limit
    max_artifact_bytes: int  # 0: no cap
    interval_s: float
    request_id_ttl_s: float = 24 * 3600.0


def retention_policy(settings: Settings) -> RetentionPolicy:
    return RetentionPolicy(
        settings.retention,
        settings.retention_artifact_bytes,
        settings.retention_interval,
        settings.idempotency_ttl,
    )


@dataclass
class SweepResult:
    runs: int = 0
    freed_bytes: int = 0
    sessions: int = 0


class RetentionSweeper(BackgroundTask):
    """`start()` sweeps at once and then every interval; `stop()` (idempotent) ends it."""

    def __init__(self, runs: RunManager, store: Store, policy: RetentionPolicy) -> None:
        super().__init__("outrider-retention", self._every_interval)
        self._runs = runs
        self._store = store
        self._policy = policy

    async def _every_interval(self) -> None:
        await self._remove_orphan_folders()
        while True:
            try:
                result = await self.sweep()
                if result.runs:
                    log.info(
                        "retention purged %d finished runs, freeing %d artifact bytes",
                        result.runs,
                        result.freed_bytes,
                    )
            except Exception:  # the sweep must outlive one bad pass; the next one retries
                log.exception("retention sweep failed")
            await self._forget_request_ids()
            self._forget_unused_profiles()
            await asyncio.sleep(self._policy.interval_s)

    async def sweep(self) -> SweepResult:
        """One pass: purges what the policy says, oldest first, BATCH runs at a time, then the
        ended sessions past the age limit."""
        result = await self._purge_runs()
        result.sessions = await self._forget_ended_sessions()
        return result

    async def _purge_runs(self) -> SweepResult:
        result = SweepResult()
        cap = self._policy.max_artifact_bytes
        total = self._store.artifact_bytes() if cap else 0
        while True:
            batch = self._store.finished_runs_oldest_first(BATCH)
            progress = False
            for usage in batch:
                if not self._due(usage, total):
                    return self._finish(result)
                if await self._purge(usage.run_id, result):
                    total -= usage.artifact_bytes
                    progress = True
            if len(batch) < BATCH or not progress:
                return self._finish(result)
            await asyncio.sleep(0)  # let the edges and runs have the loop between batches

    async def _forget_ended_sessions(self) -> int:
        """Ended sessions past the age limit, as finished runs: their records and own events."""
        if not self._policy.max_age_s:
            return 0
        before_us = clock.now_us() - int(self._policy.max_age_s * 1_000_000)
        try:
            purged = await self._store.purge_ended_sessions(before_us, 1000)
        except Exception:  # as for the runs: the next sweep retries
            log.exception("the sweep of ended sessions failed")
            return 0
        if purged:
            log.info("retention purged %d ended sessions", purged)
        return purged

    def _forget_unused_profiles(self) -> None:
        try:
            forget_unused_profiles(self._runs.vault)
        except Exception:  # as for the runs: the next sweep retries
            log.exception("the sweep of unused profiles failed")

    async def _forget_request_ids(self) -> None:
        """Frees expired request ids (a start with one of them also frees it, lazily)."""
        before_us = clock.now_us() - int(self._policy.request_id_ttl_s * 1_000_000)
        try:
            freed = await self._store.forget_request_ids(before_us)
        except Exception:
            log.exception("freeing expired request ids failed")
            return
        if freed:
            log.info("freed %d expired request ids", freed)

    def _due(self, usage: RunUsage, total_artifact_bytes: int) -> bool:
        policy = self._policy
        too_old = policy.max_age_s > 0 and (
            usage.create_us < clock.now_us() - int(policy.max_age_s * 1_000_000)
        )
        cap = policy.max_artifact_bytes
        over_cap = cap > 0 and total_artifact_bytes > cap
        return too_old or over_cap

    async def _purge(self, run_id: str, result: SweepResult) -> bool:
        try:
            _, freed = await self._runs.delete(run_id, SYSTEM)
        except (NotFound, FailedPrecondition):  # deleted meanwhile by a caller, or not finished
            return False
        result.runs += 1
        result.freed_bytes += freed
        return True

    def _finish(self, result: SweepResult) -> SweepResult:
        if result.runs:
            self._store.reclaim_space()
        return result

    async def _remove_orphan_folders(self) -> None:
        """Artifact files of runs that no longer exist (SQLite): a crash between deleting a
        run's rows and its files leaves them behind."""
        for index, run_id in enumerate(self._runs.artifacts.leftovers()):
            await self._runs.artifacts.remove_run(run_id)
            log.warning("removed the artifacts of deleted runs/%s", run_id)
            if index % BATCH == BATCH - 1:
                await asyncio.sleep(0)  # many folders: let the edges have the loop meanwhile
