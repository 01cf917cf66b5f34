"""Replicas sharing a PostgreSQL store watch for each other's loss: every interval, each closes
the runs a dead replica left active (failed, `SERVER_RESTARTED`, with terminal events), so no run
stays running with nobody executing it while the other replicas live on."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from outrider.server.core.runs import RunManager

log = logging.getLogger(__name__)


class FailoverSweeper:
    """`start()` sweeps every `interval` seconds; `stop()` (idempotent) ends it."""

    def __init__(self, runs: RunManager, interval: float) -> None:
        self._runs = runs
        self._interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._every_interval(), name="outrider-failover")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _every_interval(self) -> None:
        while True:
            await asyncio.sleep(self._interval)
            try:
                closed = self._runs.sweep_orphans()
            except Exception:  # a store hiccup must not end the sweeping; the next pass retries
                log.exception("failover sweep failed")
                continue
            if closed:
                log.warning("closed %d runs left active by a replica that is gone", closed)
