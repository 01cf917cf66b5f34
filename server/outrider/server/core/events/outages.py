"""What an open event stream does while the store cannot be reached, the same on every replica
(the one executing the run and the others): it stays open and carries heartbeats but no events
(an event is sent only once it is committed) and, once the store is back, the events it missed,
in order. When the outage has lasted longer than OUTRIDER_STORE_UNREADY_AFTER (the replica is
not ready any more), the stream ends with UNAVAILABLE (STORE_UNAVAILABLE): the client resumes
with its last sequence, on a ready replica. A new stream is refused with UNAVAILABLE at once (it
needs the store to read the run's history)."""

from __future__ import annotations

import asyncio
import time

from outrider.server.core.errors import Unavailable
from outrider.server.core.storage import Store

_RETRY = 1.0  # seconds between two reads of a watcher waiting out an outage


def check_outage(store: Store, bound: float) -> None:
    """Raises Unavailable once the store has been unreachable longer than `bound` seconds."""
    down = store.unreachable_for()
    if down > bound:
        raise _ended(down)


def _ended(down: float) -> Unavailable:
    return Unavailable(
        f"the store has been unreachable for {down:.0f} s; resume the stream from its last "
        "sequence (on a ready replica)",
        reason="STORE_UNAVAILABLE",
    )


class Outage:
    """A watcher's view of one outage: since when its reads fail (or the store says it is
    unreachable, whichever is longer), and when its next heartbeat is due."""

    def __init__(self, store: Store, bound: float, heartbeat_interval: float) -> None:
        self._store = store
        self._bound = bound
        self._heartbeat_interval = heartbeat_interval
        self._since: float | None = None
        self._beat = 0.0

    def failed(self) -> bool:
        """A read failed (Unavailable): raises once the outage lasted past the bound; True when
        a heartbeat is due."""
        now = time.monotonic()
        if self._since is None:
            self._since, self._beat = now, now
        down = max(now - self._since, self._store.unreachable_for())
        if down > self._bound:
            raise _ended(down)
        if now - self._beat >= self._heartbeat_interval:
            self._beat = now
            return True
        return False

    async def pause(self) -> None:
        await asyncio.sleep(min(_RETRY, self._heartbeat_interval))

    def over(self) -> None:
        self._since = None
