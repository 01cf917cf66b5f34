"""A watcher's bounded buffer of live events.

The publisher never waits on a watcher: when a buffer is full the subscription is marked lagging and
dropped, and the watcher catches up from the store instead. So a slow watcher costs the run nothing
and delays no other watcher.
"""

from __future__ import annotations

import asyncio
import enum
from collections import deque

from outrider.v1 import run_event_pb2


class Signal(enum.Enum):
    """What a subscription reports instead of an event."""

    IDLE = "idle"  # nothing happened for the heartbeat interval
    LAGGING = "lagging"  # the buffer overflowed; read the rest from the store
    CLOSED = "closed"  # the run ended and every buffered event was delivered


class Subscription:
    def __init__(self, limit: int) -> None:
        self._buffer: deque[run_event_pb2.RunEvent] = deque()
        self._limit = limit
        self._wake = asyncio.Event()
        self.lagging = False
        self.closed = False

    def push(self, events: list[run_event_pb2.RunEvent]) -> None:
        """Buffers events, waking the watcher once; more than the buffer holds marks the
        subscription lagging instead."""
        if self.lagging:
            return
        if len(self._buffer) + len(events) > self._limit:
            self.lagging = True
            self._buffer.clear()
        else:
            self._buffer.extend(events)
        self._wake.set()

    def close(self) -> None:
        self.closed = True
        self._wake.set()

    async def next_batch(self, idle_after: float) -> list[run_event_pb2.RunEvent] | Signal:
        """Every event buffered so far (at least one), or what happened instead."""
        while True:
            if self._buffer:
                batch = list(self._buffer)
                self._buffer.clear()
                return batch
            if self.lagging:
                return Signal.LAGGING
            if self.closed:
                return Signal.CLOSED
            self._wake.clear()
            try:
                async with asyncio.timeout(idle_after):
                    await self._wake.wait()
            except TimeoutError:
                return Signal.IDLE


class LiveRun:
    """The live end of one active run's log: its newest sequence and its watchers."""

    def __init__(self, run_id: str, last_sequence: int) -> None:
        self.run_id = run_id
        self.last_sequence = last_sequence
        self._subscriptions: set[Subscription] = set()

    @property
    def watcher_count(self) -> int:
        return len(self._subscriptions)

    def publish(self, events: list[run_event_pb2.RunEvent]) -> None:
        """Hands events, in order, to every watcher (`last_sequence`, the newest appended, is
        the event log's to advance: events are published after their commit)."""
        for subscription in self._subscriptions:
            subscription.push(events)

    def subscribe(self, limit: int) -> Subscription:
        subscription = Subscription(limit)
        self._subscriptions.add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        self._subscriptions.discard(subscription)

    def close(self) -> None:
        for subscription in self._subscriptions:
            subscription.close()
        self._subscriptions.clear()
