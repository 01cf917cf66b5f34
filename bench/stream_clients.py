"""Client processes: each opens its streams, waits for the go signal, and reports timings.

A client process holds at most one Automate call (which starts the run and relays the run's
name) and any number of StreamRunEvents calls, each on its own channel (its own connection).
Times are time.monotonic(), which on Linux is one clock for every process of the machine, so the
parent can compare timings taken in different processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing as mp
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from multiprocessing.context import SpawnProcess
from typing import Any

import grpc

from bench.stream_cpus import Cpus, pin
from outrider.v1 import params_pb2, run_service_pb2, run_service_pb2_grpc

_SPAWN = mp.get_context("spawn")
_RUN_METADATA_KEY = "outrider-run"
# Separate connections per call, as separate clients would have.
_CHANNEL_OPTIONS = (("grpc.use_local_subchannel_pool", 1),)
_TIMEOUT = 300.0


@dataclass(frozen=True)
class StreamTiming:
    """What one client call saw."""

    method: str  # "Automate" or "StreamRunEvents"
    events: int  # events received, up to and including `done`
    requested: float  # when the call was made
    first: float  # when the first event arrived
    last: float  # when `done` arrived
    gaps: int  # sequence numbers that did not follow their predecessor
    run_seconds: float  # the agent's emitting time, from the `complete` event's stats

    @property
    def seconds(self) -> float:
        return self.last - self.first

    @property
    def rate(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class ClientPlan:
    """The calls of one client process."""

    automate: bool
    watchers: int


def automate_request(events: int, watchers: int) -> run_service_pb2.AutomateRequest:
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(task="benchmark the event stream")
    )
    request.params.data.update({"events": events, "watchers": watchers})
    return request


async def _drain(method: str, stream: AsyncIterator[Any], requested: float) -> StreamTiming:
    """Counts events until `done`, checking that sequences are gapless."""
    count = gaps = previous = 0
    first = last = run_seconds = 0.0
    async for response in stream:
        if not response.HasField("event"):
            continue  # heartbeat
        event = response.event
        if count == 0:
            first = time.monotonic()
        count += 1
        gaps += event.sequence != previous + 1
        previous = event.sequence
        arm = event.automate.WhichOneof("event")
        if arm == "done":
            last = time.monotonic()
        elif arm == "complete":
            run_seconds = event.automate.complete.stats.duration_ms / 1000.0
    return StreamTiming(method, count, requested, first, last, gaps, run_seconds)


async def _automate(
    channel: grpc.aio.Channel,
    request: run_service_pb2.AutomateRequest,
    relay: Callable[[str], None],
) -> StreamTiming:
    requested = time.monotonic()
    call = run_service_pb2_grpc.RunServiceStub(channel).Automate(request, timeout=_TIMEOUT)
    metadata = dict(await call.initial_metadata())
    relay(str(metadata.get(_RUN_METADATA_KEY, "")))
    return await _drain("Automate", call, requested)


async def _watch(channel: grpc.aio.Channel, run: str) -> StreamTiming:
    request = run_service_pb2.StreamRunEventsRequest(name=run, after_sequence=0)
    requested = time.monotonic()
    call = run_service_pb2_grpc.RunServiceStub(channel).StreamRunEvents(request, timeout=_TIMEOUT)
    return await _drain("StreamRunEvents", call, requested)


async def _open_channels(
    stack: contextlib.AsyncExitStack, target: str, count: int
) -> list[grpc.aio.Channel]:
    channels = [
        await stack.enter_async_context(grpc.aio.insecure_channel(target, options=_CHANNEL_OPTIONS))
        for _ in range(count)
    ]
    await asyncio.gather(*(channel.channel_ready() for channel in channels))
    return channels


async def _client_main(
    port: int, plan: ClientPlan, request: bytes, inbox: Any, outbox: Any, index: int
) -> list[StreamTiming]:
    """Connects, signals ready, waits for the go message (a run name to watch, or "" to start
    the run with Automate and relay its name), then streams."""
    loop = asyncio.get_running_loop()
    async with contextlib.AsyncExitStack() as stack:
        channels = await _open_channels(stack, f"127.0.0.1:{port}", plan.watchers + plan.automate)
        outbox.put(("ready", index, None))
        go: str = await loop.run_in_executor(None, inbox.get)
        if not plan.automate:
            return list(await asyncio.gather(*(_watch(c, go) for c in channels)))
        watchers: list[asyncio.Task[StreamTiming]] = []

        def relay(run: str) -> None:
            outbox.put(("run", index, run))
            watchers.extend(asyncio.create_task(_watch(c, run)) for c in channels[1:])

        parsed = run_service_pb2.AutomateRequest.FromString(request)
        automate = await _automate(channels[0], parsed, relay)
        return [automate, *await asyncio.gather(*watchers)]


def client_process(
    port: int, plan: ClientPlan, request: bytes, inbox: Any, outbox: Any, index: int, cpus: Cpus
) -> None:
    """Process entry point: runs the plan and puts ("result", index, timings) on the outbox, or
    ("error", index, description) when a call fails."""
    pin(cpus)
    try:
        timings = asyncio.run(_client_main(port, plan, request, inbox, outbox, index))
    except Exception as error:
        outbox.put(("error", index, f"{type(error).__name__}: {error}"))
        raise SystemExit(1) from error
    outbox.put(("result", index, timings))


def run_clients(
    port: int, plans: list[ClientPlan], request: run_service_pb2.AutomateRequest, cpus: Cpus
) -> list[StreamTiming]:
    """Runs one client process per plan (the first one holds the Automate call) and returns
    every call's timing once all are done."""
    outbox = _SPAWN.Queue()
    inboxes = [_SPAWN.Queue() for _ in plans]
    processes: list[SpawnProcess] = [
        _SPAWN.Process(
            target=client_process,
            daemon=True,
            args=(port, plan, request.SerializeToString(), inbox, outbox, index, cpus),
        )
        for index, (plan, inbox) in enumerate(zip(plans, inboxes, strict=True))
    ]
    for process in processes:
        process.start()
    try:
        return _coordinate(plans, inboxes, outbox)
    except BaseException:
        for process in processes:
            process.kill()  # the others may wait for a go message that will not come
        raise
    finally:
        for process in processes:
            process.join(30)
            if process.is_alive():
                process.kill()


def _coordinate(plans: list[ClientPlan], inboxes: list[Any], outbox: Any) -> list[StreamTiming]:
    _expect(outbox, "ready", len(plans))
    inboxes[0].put("")  # the first plan starts the run with Automate and relays its name
    [(_, run)] = _expect(outbox, "run", 1)
    for inbox in inboxes[1:]:
        inbox.put(run)
    results = _expect(outbox, "result", len(plans))
    return [timing for _, timings in sorted(results) for timing in timings]


def _expect(outbox: Any, kind: str, count: int) -> list[tuple[int, Any]]:
    """`count` messages of `kind` from the outbox, as (process index, payload)."""
    received: list[tuple[int, Any]] = []
    while len(received) < count:
        got, index, payload = outbox.get(timeout=_TIMEOUT)
        if got == "error":
            raise RuntimeError(f"client {index} failed: {payload}")
        if got != kind:
            raise RuntimeError(f"client {index} sent {got!r} while {kind!r} was expected")
        received.append((index, payload))
    return received
