"""A test-only agent that follows instructions in the run's parameters, so the core can be
exercised before the real agents exist. Never registered in production.

Instructions come from AutomateParams.data, or from a research query that is a JSON object:
    visit        a URL to GET first, as a browser run's first page load would (a side effect a
                 test counts at the site)
    steps        how many agent:step/agent:action pairs to emit (default 3)
    usage        [input tokens, output tokens, cost or null] of a model call made at each step
    interval     seconds between steps (default 0)
    ask_input    ask for one form field (Email, E1) and report what happened
    ask_approval ask to submit and report the decision
    ask_person   ask for a person (request_human) and report how the takeover ended
    artifact     save a small PNG-like artifact with a screenshot event
    hold         wait until cancelled after the steps
    crash        raise after the steps
    fail         end with success=false, code MAX_ITERATIONS
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from google.protobuf import json_format

from outrider.server.core.clock import epoch_ms, now_us
from outrider.server.core.errors import FailedPrecondition
from outrider.server.core.runs.agent import Params, RunContext
from outrider.server.core.runs.session_seats import SessionView
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import browser_control_pb2, params_pb2, run_event_pb2, run_pb2
from outrider.v1 import research_events_pb2 as re

ARTIFACT_BYTES = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40


def instructions(ctx: RunContext) -> dict[str, Any]:
    if ctx.kind == run_pb2.RUN_KIND_AUTOMATE:
        return json_format.MessageToDict(ctx.automate.data)
    try:
        parsed = json.loads(ctx.research.query)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


@dataclass
class ScriptAgent:
    """Records what it received from the caller so tests can check values reached the agent."""

    received_inputs: list[dict[str, str]] = field(default_factory=list)
    # what runs in a session were told of it (its memory of earlier runs), in order
    session_views: list[SessionView] = field(default_factory=list)

    def preflight(self, params: Params, options: params_pb2.RunOptions) -> None:
        scenario = options.model.removeprefix("scripted:")
        if scenario != options.model and not Path(scenario).is_file():
            raise FailedPrecondition("no such model", reason="MODEL_NOT_CONFIGURED")

    async def readiness(self) -> str:
        return ""

    async def aclose(self) -> None:
        pass

    async def run(self, ctx: RunContext) -> run_pb2.RunOutcome:
        plan = instructions(ctx)
        if ctx.session is not None:
            self.session_views.append(ctx.session)
        if plan.get("visit"):
            async with httpx.AsyncClient(timeout=10) as http:
                await http.get(str(plan["visit"]))
        if ctx.kind == run_pb2.RUN_KIND_RESEARCH:
            return await self._research(ctx, plan)
        return await self._automate(ctx, plan)

    async def _automate(self, ctx: RunContext, plan: dict[str, Any]) -> run_pb2.RunOutcome:
        ctx.emit(
            ae.AutomateEvent(
                task_setup=ae.TaskSetup(
                    task=ctx.automate.task,
                    browser_name="script",
                    iteration_id="setup",
                    timestamp=_ms(),
                )
            )
        )
        for step in range(1, int(plan.get("steps", 3)) + 1):
            await self._step(ctx, step, float(plan.get("interval", 0)))
            if plan.get("usage"):
                tokens_in, tokens_out, cost = plan["usage"]
                ctx.count_usage(int(tokens_in), int(tokens_out), cost)
        if plan.get("artifact"):
            name = ctx.save_artifact(ARTIFACT_BYTES, "image/png")
            ctx.emit(
                ae.AutomateEvent(
                    browser_screenshot_captured=ae.BrowserScreenshotCaptured(
                        format=ae.SCREENSHOT_FORMAT_PNG, size=len(ARTIFACT_BYTES), timestamp=_ms()
                    )
                ),
                name,
            )
        if plan.get("ask_input"):
            await self._ask_input(ctx)
        if plan.get("ask_approval"):
            await self._ask_approval(ctx)
        if plan.get("ask_person"):
            await self._ask_person(ctx)
        return await self._finish(ctx, plan)

    async def _step(self, ctx: RunContext, step: int, interval: float) -> None:
        iteration = f"it-{step}"
        ctx.emit(
            ae.AutomateEvent(
                agent_step=ae.AgentStep(
                    current_iteration=step, iteration_id=iteration, timestamp=_ms()
                )
            )
        )
        ctx.emit(
            ae.AutomateEvent(
                agent_action=ae.AgentAction(
                    action="click", ref=f"E{step}", iteration_id=iteration, timestamp=_ms()
                )
            )
        )
        await asyncio.sleep(interval)

    async def _ask_input(self, ctx: RunContext) -> None:
        request = ae.InteractiveFormDataRequest(
            fields=[
                ae.FormField(
                    ref="E1", label="Email", required=True, field_type=ae.FORM_FIELD_TYPE_EMAIL
                )
            ],
            form_description="Log in",
            page_title="Log in",
            page_url="http://127.0.0.1/login",
            iteration_id="input",
            timestamp=_ms(),
        )
        answer = await ctx.ask_input(request)
        if answer.submitted:
            self.received_inputs.append(answer.values)
        verdict = "submitted" if answer.submitted else "declined"
        self._status(ctx, f"input {verdict} ({run_event_pb2.ResolutionSource.Name(answer.source)})")

    async def _ask_approval(self, ctx: RunContext) -> None:
        request = run_event_pb2.ApprovalRequested(
            action="submit",
            ref="E9",
            url="http://127.0.0.1/login",
            iteration_id="approve",
            reason="this site is not one the run trusts",
            question="Submit the form “Sign in” on 127.0.0.1 — this site is not one the run trusts",
        )
        answer = await ctx.ask_approval(request, standing_key="submit:127.0.0.1")
        self._status(ctx, f"approval {run_event_pb2.ApprovalDecision.Name(answer.decision)}")

    async def _ask_person(self, ctx: RunContext) -> None:
        assert ctx.control is not None  # a browser run has one (without a browser behind it)
        answer = await ctx.control.request_human("person", "a CAPTCHA")
        self._status(ctx, f"takeover {browser_control_pb2.TakeoverEnding.Name(answer.ending)}")

    def _status(self, ctx: RunContext, message: str) -> None:
        ctx.emit(
            ae.AutomateEvent(
                agent_status=ae.AgentStatus(message=message, iteration_id="status", timestamp=_ms())
            )
        )

    async def _finish(self, ctx: RunContext, plan: dict[str, Any]) -> run_pb2.RunOutcome:
        if plan.get("hold"):
            await asyncio.Event().wait()
        if plan.get("crash"):
            raise RuntimeError("scripted crash")
        if plan.get("fail"):
            return run_pb2.RunOutcome(
                success=False, error_code="MAX_ITERATIONS", error_message="scripted failure"
            )
        ctx.emit(
            ae.AutomateEvent(
                task_completed=ae.TaskCompleted(
                    final_answer="done", success=True, iteration_id="end", timestamp=_ms()
                )
            )
        )
        ctx.emit(ae.AutomateEvent(complete=ae.AutomateComplete(success=True, final_answer="done")))
        ctx.emit(ae.AutomateEvent(done=ae.AutomateDone()))
        return run_pb2.RunOutcome(success=True, result="done")

    async def _research(self, ctx: RunContext, plan: dict[str, Any]) -> run_pb2.RunOutcome:
        ctx.emit(
            re.ResearchEvent(start=re.ResearchStart(message="Research begins", timestamp=_ms()))
        )
        for step in range(1, int(plan.get("steps", 2)) + 1):
            ctx.emit(
                re.ResearchEvent(
                    iteration_start=re.IterationStart(
                        iteration=step, max_iterations=3, message="searching", timestamp=_ms()
                    )
                )
            )
            await asyncio.sleep(float(plan.get("interval", 0)))
        if plan.get("hold"):
            await asyncio.Event().wait()
        ctx.emit(
            re.ResearchEvent(
                complete=re.ResearchComplete(
                    report="A report [1].", message="Research complete", timestamp=_ms()
                )
            )
        )
        return run_pb2.RunOutcome(success=True, result="A report [1].")


def _ms() -> float:
    return epoch_ms(now_us())
