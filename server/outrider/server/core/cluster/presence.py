"""Keeps this process's presence in a shared store: about every second it checks its PostgreSQL
presence lock and takes it back as soon as PostgreSQL lets it (after a restart, or when the
session was dropped), so a live replica is seen alive again long before anyone judges it gone
(a takeover needs two sweeps, a relayed call waits two failover intervals). The checks are also
how the replica knows whether it reaches its store (readiness, fast-failing reads).

The checks run in a thread of their own, never on the event loop: a loop held for seconds (a
read waiting for a pooled connection while PostgreSQL is down, a long sweep, a busy machine)
must not keep a live replica's presence away, or other replicas take its runs over."""

from __future__ import annotations

import asyncio
import logging
import threading
import time

from outrider.server.core.errors import Unavailable
from outrider.server.core.storage import Store
from outrider.server.telemetry import metrics

log = logging.getLogger(__name__)

# Seconds `stop()` waits for a check under way (a connection attempt to an unreachable store
# may take its whole connect timeout); the thread then ends after that check.
_STOP_WAIT = 5.0


def keeper_period(failover_interval: float) -> float:
    """Often enough that a replica takes its presence back within half a failover interval."""
    return min(1.0, failover_interval / 2) if failover_interval > 0 else 1.0


def presence_patience(failover_interval: float) -> float:
    """How long a relayed call waits for its executor's presence before calling it lost: two
    failover intervals (by then a dead executor's runs were taken over, and the new owner
    answers), and at least three presence checks (a live one took its presence back)."""
    return max(2 * failover_interval, 3 * keeper_period(failover_interval))


class PresenceKeeper:
    """`start()` checks every `period` seconds in a thread; `stop()` (idempotent) ends it."""

    def __init__(self, store: Store, period: float) -> None:
        self._store = store
        self._period = period
        self._lost_at: float | None = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(
            target=self._every_period, name="outrider-presence", daemon=True
        )
        self._thread.start()

    async def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, _STOP_WAIT)
            self._thread = None

    def _every_period(self) -> None:
        while not self._stopping.wait(self._period):
            self.check()

    def check(self) -> None:
        """One check (blocking: a connection may be opened): logs and counts a presence lost
        and taken back."""
        try:
            retaken = self._store.keep_presence()
        except Unavailable as error:
            self._lost(error.message)
            return
        except Exception:  # a bug must not end the keeping; the next check tries again
            log.exception("presence check failed")
            return
        if retaken:
            self._lost("PostgreSQL dropped its session")  # no-op when already noted
            lost_for = time.monotonic() - (self._lost_at or time.monotonic())
            log.warning("presence taken back after %.1f s", lost_for)
            metrics.presence("retaken")
        self._lost_at = None

    def _lost(self, why: str) -> None:
        if self._lost_at is not None:
            return
        self._lost_at = time.monotonic()
        log.warning("presence lost (other replicas may see this one as gone): %s", why)
        metrics.presence("lost")
