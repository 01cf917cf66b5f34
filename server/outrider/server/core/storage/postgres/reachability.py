"""Whether this process reaches its PostgreSQL store, as its presence checks (every second or
so) and its reads find: since when it has not, for readiness (not ready past a bound), for
reads (they fail at once while it is known unreachable, instead of each waiting for a pooled
connection on the event loop), and for operators (a log line when it goes and comes back; the
`outrider_store_unreachable*` series)."""

from __future__ import annotations

import logging
import threading
import time

from outrider.server.telemetry import metrics

log = logging.getLogger(__name__)


class Reachability:
    """Thread-safe: the presence keeper's thread and the event loop both report to it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._since: float | None = None  # monotonic time it was first missed
        self._counted = 0.0  # up to when unreachable seconds were counted

    def missed(self, why: str) -> None:
        with self._lock:
            now = time.monotonic()
            if self._since is None:
                self._since = self._counted = now
                log.warning("PostgreSQL unreachable: %s", why)
                metrics.store_unreachable(True, 0.0)
                return
            metrics.store_unreachable(True, now - self._counted)
            self._counted = now

    def reached(self) -> None:
        with self._lock:
            if self._since is None:
                return
            now = time.monotonic()
            log.warning("PostgreSQL reachable again after %.1f s", now - self._since)
            metrics.store_unreachable(False, now - self._counted)
            self._since = None

    def unreachable_for(self) -> float:
        """Seconds since this process last found the store unreachable without reaching it
        since; 0.0 while it is reachable."""
        with self._lock:
            return 0.0 if self._since is None else max(time.monotonic() - self._since, 1e-6)
