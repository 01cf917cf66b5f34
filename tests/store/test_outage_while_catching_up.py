"""A stream of a run this replica executes waits a PostgreSQL outage out the same way a stream of
a run another replica executes does (core/events/outages.py): with heartbeats, and gapless once the
store is back, also when the outage comes while the stream must read the store: half-way through
the run's history (a slow consumer), or after its live subscription fell behind. A new stream
is refused at once meanwhile. Real PostgreSQL (stopped and started), store, presence keeper and
event log, in this process: the test decides when the stream reads."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Iterator

import pytest

from outrider.server.core.cluster.presence import PresenceKeeper
from outrider.server.core.errors import Unavailable
from outrider.server.core.events.log import EventLog, WatchBatch
from outrider.server.core.storage.postgres.store import PostgresStore
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2, run_pb2
from tests.support.harness import eventually
from tests.support.postgres import PostgresServer

HISTORY = 600  # more than one page of history (256 events)
BUFFER = 8  # a live subscription's buffer: a burst larger than this makes it fall behind
BURST = 40


@pytest.fixture
def server() -> Iterator[PostgresServer]:
    private = PostgresServer(private=True)  # stopped and started by the test
    yield private
    private.close()


@pytest.fixture
async def store(server: PostgresServer) -> AsyncIterator[PostgresStore]:
    opened = PostgresStore(server.create_database())
    keeper = PresenceKeeper(opened, period=0.2)  # finds the outage, and its end, as a server does
    keeper.start()
    yield opened
    await keeper.stop()
    opened.close()


def reasoned(number: int) -> ae.AutomateEvent:
    return ae.AutomateEvent(agent_reasoned=ae.AgentReasoned(reasoning=f"step {number}"))


class Stream:
    """One watcher that reads only when told to (a slow consumer)."""

    def __init__(self, items: AsyncGenerator[WatchBatch, None]) -> None:
        self.items = items
        self.events: list[run_event_pb2.RunEvent] = []
        self.heartbeats = 0

    async def next(self) -> WatchBatch:
        item = await asyncio.wait_for(anext(self.items), 60)
        if isinstance(item, list):
            self.events.extend(item)
        else:
            self.heartbeats += 1
        return item

    async def until_heartbeat(self) -> None:
        while not isinstance(await self.next(), run_event_pb2.Heartbeat):
            pass

    async def until_sequence(self, sequence: int) -> None:
        while not self.events or self.events[-1].sequence < sequence:
            await self.next()


async def outage(server: PostgresServer, store: PostgresStore) -> None:
    """Stops PostgreSQL; returns once the store knows (reads fail at once from then on)."""
    await asyncio.to_thread(server.stop)
    await eventually(lambda: store.unreachable_for() > 0, within=30)


async def test_a_stream_of_a_run_executed_here_waits_out_outages_while_it_reads(
    server: PostgresServer, store: PostgresStore
) -> None:
    store.save_run(run_pb2.Run(name="runs/run1", state=run_pb2.RUN_STATE_RUNNING), "run1")
    log = EventLog(store, buffer_limit=BUFFER, outage_bound=120)
    log.open("run1")
    for number in range(HISTORY):
        log.append("run1", reasoned(number))
    await store.committed()
    stream = Stream(log.follow_batches("run1", 0, heartbeat_interval=0.2))
    first = await stream.next()
    assert isinstance(first, list) and len(first) < HISTORY  # one page: the rest is to be read

    await outage(server, store)  # half-way through the history
    with pytest.raises(Unavailable):  # a new stream needs the store: refused at once
        await anext(log.follow_batches("run1", 0, heartbeat_interval=0.2))
    await stream.until_heartbeat()  # the open one waits
    await asyncio.to_thread(server.start)
    await stream.until_sequence(HISTORY)
    await stream.until_heartbeat()  # caught up: on the live subscription now

    for number in range(BURST):  # more than its buffer holds: the subscription falls behind
        log.append("run1", reasoned(HISTORY + number))
    await store.committed()  # the burst is handed to the (full) subscription meanwhile
    await outage(server, store)  # the stream must read the burst from the store
    await stream.until_heartbeat()
    await asyncio.to_thread(server.start)
    await stream.until_sequence(HISTORY + BURST)

    log.close("run1")
    async for _ in stream.items:  # the run ended: the stream ends, without an error
        pass
    assert [e.sequence for e in stream.events] == list(range(1, HISTORY + BURST + 1))
