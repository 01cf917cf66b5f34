"""Admission control: at most `capacity` runs execute at once; the others wait in line, first come
first served, and each waiting run is told its place whenever it changes.

A run calls `enter` before its agent starts and `leave` when it ends, whether it ran, was
cancelled while waiting, or never got a turn; `leave` hands the freed slot to the next in line.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from outrider.server.telemetry import metrics


class Admission:
    def __init__(self, capacity: int, tell_place: Callable[[str, int], None]) -> None:
        self._capacity = capacity
        self._tell_place = tell_place  # (run id, place in line: 1 is next)
        self._running: set[str] = set()
        self._line: dict[str, asyncio.Future[None]] = {}  # in arrival order
        self._told: dict[str, int] = {}  # the place each waiting run was last told

    @property
    def running(self) -> int:
        return len(self._running)

    @property
    def waiting(self) -> int:
        return len(self._line)

    async def enter(self, run_id: str) -> None:
        """Returns once the run may execute; waits in line while the slots are taken."""
        if len(self._running) < self._capacity and not self._line:
            self._running.add(run_id)
            return
        turn = asyncio.get_running_loop().create_future()
        self._line[run_id] = turn
        self._tell_places()
        await turn

    def leave(self, run_id: str) -> None:
        self._told.pop(run_id, None)
        if self._line.pop(run_id, None) is None:
            self._running.discard(run_id)
            self._admit_next()
        self._tell_places()

    def _admit_next(self) -> None:
        while self._line and len(self._running) < self._capacity:
            run_id = next(iter(self._line))
            turn = self._line.pop(run_id)
            self._told.pop(run_id, None)
            if turn.done():
                continue  # cancelled while waiting; its own `leave` is on its way
            self._running.add(run_id)
            turn.set_result(None)

    def _tell_places(self) -> None:
        metrics.runs_waiting(len(self._line))
        for place, run_id in enumerate(self._line, start=1):
            if self._told.get(run_id) != place:
                self._told[run_id] = place
                self._tell_place(run_id, place)
