"""Shutdown delivers the ending: after SIGTERM every connected watcher, on both edges, receives
its run's terminal events (exactly once, gapless) before the server closes the streams.

Two runs hold until cancelled: one started over gRPC, one over REST. Each is watched by its
starter, a StreamRunEvents call, an Interact attach and a REST SSE resume; half of the watchers
connect right before the signal. The grace runs out, the runs are cancelled, and every watcher
must see the cancelled terminal events.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from outrider.server.core.events.names import event_name
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import (
    interaction_service_pb2_grpc,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
)
from tests.rest.support import sse_events
from tests.support.harness import ServerProcess, eventually
from tests.support.outbox import Outbox
from tests.support.requests import automate_request
from tests.support.store_rows import stored_run

APPROVAL_EVENTS = {"X-Outrider-Approval-Events": "true"}  # every event, so gaps would show
HOLD = {"task": "t", "data": {"steps": 1, "hold": True}}
Seen = list[tuple[int, str]]  # (sequence, event name) in the order a watcher received them


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path, rest=True, OUTRIDER_SHUTDOWN_GRACE="1.5")
    process.start()
    yield process
    process.close()


async def grpc_events(call: Any, seen: Seen | None = None) -> Seen:
    """Read with read() (the starter's first event was read that way; styles cannot mix), into
    `seen` as they come."""
    seen = [] if seen is None else seen
    while (response := await call.read()) is not grpc.aio.EOF:
        if response.HasField("event"):
            seen.append((response.event.sequence, event_name(response.event)))
    return seen


async def open_sse(http: httpx.AsyncClient, method: str, path: str, **kwargs: Any) -> Any:
    """The response once its headers arrived: the watcher is connected and subscribed."""
    request = http.build_request(method, path, headers=APPROVAL_EVENTS, **kwargs)
    response = await http.send(request, stream=True)
    assert response.status_code == 200, await response.aread()
    return response


async def sse_seen(response: httpx.Response, seen: Seen | None = None) -> Seen:
    seen = [] if seen is None else seen
    try:
        async for block in sse_events(response):
            seen.append((int(block.id or 0), block.event or ""))
        return seen
    finally:
        await response.aclose()


def assert_delivered_ending(seen: Seen, who: str) -> None:
    sequences = [sequence for sequence, _ in seen]
    names = [name for _, name in seen]
    assert sequences == list(range(1, len(seen) + 1)), (who, seen)
    assert names[-2:] == ["complete", "done"], (who, seen)
    assert names.count("complete") == 1 and names.count("done") == 1, (who, seen)


async def test_every_watcher_gets_the_ending_after_sigterm(server: ServerProcess) -> None:
    target = f"127.0.0.1:{server.port}"
    async with (
        grpc.aio.insecure_channel(target) as channel,
        httpx.AsyncClient(base_url=f"http://127.0.0.1:{server.rest_port}", timeout=60) as http,
    ):
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        interactions = interaction_service_pb2_grpc.InteractionServiceStub(channel)
        started = runs.Automate(automate_request(steps=1, hold=True))
        grpc_run = (await started.read()).event.run
        rest_started = await open_sse(http, "POST", "/v1/automate", json=HOLD)
        rest_run = rest_started.headers["outrider-run"]
        watchers: dict[str, Awaitable[Seen]] = {
            "grpc starter": prepend((1, "task:setup"), grpc_events(started)),
            "rest starter": sse_seen(rest_started),
        }
        outboxes: list[Outbox] = []

        async def watch_both_edges(label: str) -> None:
            """Opens the watchers and returns once each is connected (its first response in)."""
            for run in (grpc_run, rest_run):
                request = run_service_pb2.StreamRunEventsRequest(name=run)
                stream = runs.StreamRunEvents(request)
                outbox = Outbox(isv.InteractRequest(attach=isv.InteractAttach(run=run)))
                outboxes.append(outbox)
                interact = interactions.Interact(outbox)
                path = f"/v1/runs/{run.removeprefix('runs/')}/events"
                sse = await open_sse(http, "GET", path)
                for call in (stream, interact):
                    await call.initial_metadata()
                for edge, reading in (
                    ("stream", partial(grpc_events, stream)),
                    ("interact", partial(grpc_events, interact)),
                    ("sse", partial(sse_seen, sse)),
                ):
                    got[f"{label} {edge} {run}"] = []
                    watchers[f"{label} {edge} {run}"] = reading(got[f"{label} {edge} {run}"])

        got: dict[str, Seen] = {}
        await watch_both_edges("early")
        tasks = {who: asyncio.ensure_future(seen) for who, seen in watchers.items()}
        last = {run: await last_sequence(runs, run) for run in (grpc_run, rest_run)}

        def caught_up() -> bool:  # the early ones read all there is: they are live and idle
            return all(len(seen) >= last[who.rsplit(" ", 1)[1]] for who, seen in got.items())

        await eventually(caught_up)
        await watch_both_edges("late")
        server.signal(signal.SIGTERM)  # the late ones connected moments before
        tasks |= {w: asyncio.ensure_future(s) for w, s in watchers.items() if w not in tasks}
        outcomes = await asyncio.gather(*tasks.values(), return_exceptions=True)
        results = dict(zip(tasks, outcomes, strict=True))
        failed = {who: repr(r)[:200] for who, r in results.items() if isinstance(r, BaseException)}
        assert not failed, failed
        for outbox in outboxes:
            outbox.close()
    for who, seen in results.items():
        assert_delivered_ending(seen, who)
    code, output = server.wait()
    assert code == 0, output


async def last_sequence(runs: run_service_pb2_grpc.RunServiceStub, run: str) -> int:
    return (await runs.GetRun(run_service_pb2.GetRunRequest(name=run))).run.last_sequence


async def prepend(first: tuple[int, str], rest: Awaitable[Seen]) -> Seen:
    return [first, *await rest]


async def test_a_watcher_behind_at_shutdown_still_gets_the_ending(tmp_path: Path) -> None:
    """A watcher that stops reading with hundreds of events unread (its HTTP/2 window full)
    and resumes after its run was cancelled still reads everything up to the ending: the
    server waits for it (within the grace) before closing streams and the store."""
    process = ServerProcess(tmp_path, OUTRIDER_SHUTDOWN_GRACE="2")
    process.start()
    small_window = [("grpc.http2.bdp_probe", 0)]  # stays at 64 KiB: the server must wait
    try:
        async with grpc.aio.insecure_channel(
            f"127.0.0.1:{process.port}", options=small_window
        ) as channel:
            runs = run_service_pb2_grpc.RunServiceStub(channel)
            call = runs.Automate(automate_request(steps=600, hold=True, task="x" * 200))
            first = await call.read()
            watcher = runs.StreamRunEvents(
                run_service_pb2.StreamRunEventsRequest(name=first.event.run)
            )
            outbox = Outbox(isv.InteractRequest(attach=isv.InteractAttach(run=first.event.run)))
            attached = interaction_service_pb2_grpc.InteractionServiceStub(channel).Interact(outbox)
            for stream in (watcher, attached):
                await stream.initial_metadata()
            run = first.event.run

            async def emitted_its_steps() -> bool:  # while the watchers read none
                return await last_sequence(runs, run) > 1200

            await eventually(emitted_its_steps, within=30)
            process.signal(signal.SIGTERM)
            # cancelled at the end of the 2 s grace, its ending stored; still not read
            ended = (run_pb2.RUN_STATE_CANCELLED, 1203)
            await eventually(lambda: stored_run(tmp_path, run) == ended, within=30)
            seen = await grpc_events(watcher)
            interacted = await grpc_events(attached)
            outbox.close()
            starter = [(1, event_name(first.event)), *await grpc_events(call)]
        for who, events in (("stream", seen), ("interact", interacted), ("starter", starter)):
            assert_delivered_ending(events, who)
            assert len(events) > 1200
        code, output = process.wait()
        assert code == 0, output
    finally:
        process.close()
