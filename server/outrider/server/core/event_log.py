"""Per-run event logs: gapless sequences, persisted first, then fanned out to live watchers."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator

from google.protobuf.message import Message

from outrider.server.core import clock
from outrider.server.core.errors import OutOfRange
from outrider.server.core.names import run_name
from outrider.server.core.store import Store
from outrider.server.core.subscription import LiveRun, Signal, Subscription
from outrider.server.telemetry import metrics
from outrider.v1 import run_event_pb2

_CATCH_UP_PAGE = 256

# RunEvent's payload arm for each payload message type, read from the contract itself.
_PAYLOAD_ARMS = {
    field.message_type.full_name: field.name  # type: ignore[union-attr]
    for field in run_event_pb2.RunEvent.DESCRIPTOR.oneofs_by_name["payload"].fields
}

WatchItem = run_event_pb2.RunEvent | run_event_pb2.Heartbeat


class EventLog:
    """Appends events with sequence 1, 2, 3, ... and serves "everything after N, then live"."""

    def __init__(self, store: Store, buffer_limit: int) -> None:
        self._store = store
        self._buffer_limit = buffer_limit
        self._live: dict[str, LiveRun] = {}

    def open(self, run_id: str, last_sequence: int = 0) -> None:
        self._live[run_id] = LiveRun(last_sequence)

    def close(self, run_id: str) -> None:
        live = self._live.pop(run_id, None)
        if live is not None:
            live.close()

    def is_open(self, run_id: str) -> bool:
        return run_id in self._live

    def last_sequence(self, run_id: str) -> int | None:
        live = self._live.get(run_id)
        return live.last_sequence if live else None

    def watcher_count(self, run_id: str) -> int:
        live = self._live.get(run_id)
        return live.watcher_count if live else 0

    def append(self, run_id: str, payload: Message, artifact: str = "") -> run_event_pb2.RunEvent:
        """Persists the next event of an open run and hands it to its watchers."""
        live = self._live[run_id]
        event = run_event_pb2.RunEvent(
            run=run_name(run_id),
            sequence=live.last_sequence + 1,
            time=clock.timestamp(clock.now_us()),
            artifact=artifact,
        )
        getattr(event, _PAYLOAD_ARMS[payload.DESCRIPTOR.full_name]).CopyFrom(payload)
        self._store.append_event(run_id, event)
        live.publish(event)
        return event

    def check_cursor(self, run_id: str, after: int, last_sequence: int) -> None:
        if after > last_sequence:
            raise OutOfRange(
                f"after_sequence {after} is beyond the newest event {last_sequence} of "
                f"{run_name(run_id)}",
                reason="SEQUENCE_OUT_OF_RANGE",
            )

    async def follow(
        self, run_id: str, after: int, heartbeat_interval: float
    ) -> AsyncGenerator[WatchItem, None]:
        """Every event after `after` exactly once, in order, then live ones until the run ends.

        Heartbeats are yielded while the run is quiet. Store reads and subscribing happen without
        an await in between, so no event can fall between history and the live feed.
        """
        metrics.watchers(+1)
        try:
            async with contextlib.aclosing(
                self._follow(run_id, after, heartbeat_interval)
            ) as items:
                async for item in items:
                    yield item
        finally:
            metrics.watchers(-1)

    async def _follow(
        self, run_id: str, after: int, heartbeat_interval: float
    ) -> AsyncGenerator[WatchItem, None]:
        cursor = after
        while True:
            page = self._store.events_after(run_id, cursor, _CATCH_UP_PAGE)
            if page:
                for event in page:
                    yield event
                cursor = page[-1].sequence
                continue
            live = self._live.get(run_id)
            if live is None:
                return
            subscription = live.subscribe(self._buffer_limit)
            try:
                drain = self._drain(subscription, live, heartbeat_interval)
                async with contextlib.aclosing(drain) as items:
                    async for item in items:
                        if isinstance(item, run_event_pb2.RunEvent):
                            cursor = item.sequence
                        yield item
            finally:
                live.unsubscribe(subscription)
            if not subscription.lagging:
                return

    async def _drain(
        self, subscription: Subscription, live: LiveRun, heartbeat_interval: float
    ) -> AsyncGenerator[WatchItem, None]:
        while True:
            item = await subscription.next(heartbeat_interval)
            if item is Signal.IDLE:
                yield run_event_pb2.Heartbeat(
                    time=clock.timestamp(clock.now_us()), last_sequence=live.last_sequence
                )
            elif isinstance(item, Signal):
                return
            else:
                yield item
