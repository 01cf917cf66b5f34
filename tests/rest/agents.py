"""A test-only agent that emits one fully populated example of every automate (or research)
event type, then the terminal events; the core adds nothing but its own complete/done."""

from __future__ import annotations

from dataclasses import dataclass

from outrider.server.core.runs.agent import Params, RunContext
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import params_pb2, run_pb2
from outrider.v1 import research_events_pb2 as re_pb
from tests.rest.catalogue import AUTOMATE_ARMS, RESEARCH_ARMS, example

_TERMINAL = {"complete", "done", "error"}


@dataclass
class CatalogueAgent:
    def preflight(self, params: Params, options: params_pb2.RunOptions) -> None:
        pass

    async def readiness(self) -> str:
        return ""

    async def aclose(self) -> None:
        pass

    async def run(self, ctx: RunContext) -> run_pb2.RunOutcome:
        automate = ctx.kind == run_pb2.RUN_KIND_AUTOMATE
        union = ae.AutomateEvent if automate else re_pb.ResearchEvent
        for arm in AUTOMATE_ARMS if automate else RESEARCH_ARMS:
            if arm not in _TERMINAL:
                ctx.emit(union(**{arm: example(union, arm)}))  # type: ignore[arg-type]
        if automate:
            ctx.emit(ae.AutomateEvent(error=example(ae.AutomateEvent, "error")))  # type: ignore[arg-type]
        return run_pb2.RunOutcome(success=True, result="catalogue done")
