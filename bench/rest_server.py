"""The benchmark's server process: gRPC and REST/SSE edges (and /mcp) over one RunManager, with an
agent that emits `data.events` agent:reasoned events (~200 bytes of text each) as fast as it can,
or agent:action events with `data.actions` (each one an MCP progress notification).

`python -m bench.rest_server <data_dir>` prints "ports <grpc> <rest>" and serves until killed.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import json_format

from outrider.server.core.clock import epoch_ms, now_us
from outrider.server.core.runs.agent import Params, RunContext
from outrider.server.service import Outrider
from outrider.server.settings import Settings
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import params_pb2, run_pb2

TEXT = "The page lists three products; the second matches the query, so I open it next. " * 2


@dataclass
class EmittingAgent:
    def preflight(self, params: Params, options: params_pb2.RunOptions) -> None:
        pass

    async def readiness(self) -> str:
        return ""

    async def aclose(self) -> None:
        pass

    async def run(self, ctx: RunContext) -> run_pb2.RunOutcome:
        data = json_format.MessageToDict(ctx.automate.data)
        count = int(data.get("events", 1000))
        for index in range(count):
            ctx.emit(_action(index) if data.get("actions") else _reasoned(index))
            if index % 64 == 63:
                await asyncio.sleep(0)
        ctx.emit(ae.AutomateEvent(complete=ae.AutomateComplete(success=True, final_answer="ok")))
        ctx.emit(ae.AutomateEvent(done=ae.AutomateDone()))
        return run_pb2.RunOutcome(success=True, result="ok")


def _reasoned(index: int) -> ae.AutomateEvent:
    reasoned = ae.AgentReasoned(reasoning=TEXT, iteration_id=f"it-{index}", timestamp=0)
    reasoned.timestamp = epoch_ms(now_us())
    return ae.AutomateEvent(agent_reasoned=reasoned)


def _action(index: int) -> ae.AutomateEvent:
    action = ae.AgentAction(action="click", ref=f"E{index}", iteration_id=f"it-{index}")
    action.timestamp = epoch_ms(now_us())
    return ae.AutomateEvent(agent_action=action)


async def serve(data_dir: Path) -> None:
    settings = Settings(data_dir=data_dir, port=0, rest_port=0, max_concurrent_runs=8)
    agent = EmittingAgent()
    server = Outrider(settings, {run_pb2.RUN_KIND_AUTOMATE: agent})
    await server.start()
    assert server.rest is not None
    print(f"ports {server.grpc.port} {server.rest.port}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop()


if __name__ == "__main__":
    asyncio.run(serve(Path(sys.argv[1])))
