"""BenchAgent: a bench-only agent that emits a configurable number of events as fast as it can.

Instructions come from AutomateParams.data:
    events    how many agent events to emit before complete + done (default 20000)
    watchers  wait (up to WAIT_LIMIT seconds) until this many watchers follow the run before
              emitting, so that every watcher takes the live path (default 1)
The `complete` event's stats carry the time the agent spent emitting (first event to `done`),
which the bench reports as the run's own duration.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from google.protobuf import json_format

from bench.stream_events import agent_payload, complete_payload, done_payload, stats_of
from outrider.server.core import clock
from outrider.server.core.events.log import EventLog
from outrider.server.core.runs.agent import Params, RunContext
from outrider.v1 import params_pb2, run_pb2

YIELD_EVERY = 100  # events between `await asyncio.sleep(0)`, so fan-out and writers get to run
WAIT_LIMIT = 60.0  # seconds to wait for the expected watchers


@dataclass
class BenchAgent:
    """Needs the server's event log (set after the server is built) to count watchers."""

    log: EventLog | None = None

    async def run(self, ctx: RunContext) -> run_pb2.RunOutcome:
        plan = json_format.MessageToDict(ctx.automate.data)
        events = int(plan.get("events", 20_000))
        await self._wait_for_watchers(ctx.run_id, int(plan.get("watchers", 1)))
        started = clock.now_us()
        for index in range(events):
            ctx.emit(agent_payload(index, clock.epoch_ms(clock.now_us())))
            if index % YIELD_EVERY == YIELD_EVERY - 1:
                await asyncio.sleep(0)
        ctx.emit(complete_payload(stats_of(events, started, clock.now_us())))
        ctx.emit(done_payload())
        return run_pb2.RunOutcome(success=True, result="done")

    def preflight(self, params: Params, options: params_pb2.RunOptions) -> None:
        """Every run can start: the agent needs no model or browser."""

    async def readiness(self) -> str:
        return ""

    async def aclose(self) -> None:
        """Holds nothing across runs."""

    async def _wait_for_watchers(self, run_id: str, watchers: int) -> None:
        if self.log is None:
            return
        deadline = time.monotonic() + WAIT_LIMIT
        # The event log has no "someone subscribed" signal, so poll.
        while self.log.watcher_count(run_id) < watchers and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.005)
