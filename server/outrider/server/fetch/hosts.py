"""Per-host politeness: at most N requests at once to a host, and a minimum gap between starts."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class HostGate:
    def __init__(self, concurrency: int, delay: float) -> None:
        self._concurrency = concurrency
        self._delay = delay
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._next_start: dict[str, float] = {}

    @contextlib.asynccontextmanager
    async def slot(self, host: str, crawl_delay: float = 0.0) -> AsyncIterator[None]:
        """Holds one of the host's slots, starting no sooner than its turn."""
        semaphore = self._slots.setdefault(host, asyncio.Semaphore(self._concurrency))
        async with semaphore:
            await self._wait_turn(host, max(self._delay, crawl_delay))
            yield

    async def _wait_turn(self, host: str, gap: float) -> None:
        now = asyncio.get_running_loop().time()
        start = max(now, self._next_start.get(host, now))
        self._next_start[host] = start + gap  # reserved before waiting: no lock needed
        if start > now:
            await asyncio.sleep(start - now)
