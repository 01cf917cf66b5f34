"""One browser-agent run: connect, plan, then observe → decide → act until done, a budget, or
abort; every ending reported in the seed's terminal shape."""

from __future__ import annotations

import secrets as token_source
from dataclasses import replace
from typing import Any

from google.protobuf import json_format, struct_pb2

from outrider.server.browser.actions import ActionResult, ActionRunner
from outrider.server.browser.budget import ErrorBudget, RepeatGuard
from outrider.server.browser.connection import BrowserLost, Connection
from outrider.server.browser.conversation import Conversation
from outrider.server.browser.credential_fill import CREDENTIAL_RULE
from outrider.server.browser.endings import Endings
from outrider.server.browser.env import BrowserEnv
from outrider.server.browser.firewall import Firewall, Hold
from outrider.server.browser.forms import FilledForm, FormInput
from outrider.server.browser.holds import HoldDecider
from outrider.server.browser.human_control import NOT_DONE, HumanControl
from outrider.server.browser.launcher import NoBrowserAvailable
from outrider.server.browser.model_calls import ModelCaller, StructuredReplyFailed
from outrider.server.browser.observe import Observer
from outrider.server.browser.prompts import (
    PLAN_SCHEMA,
    extract_text,
    plan_request_text,
    planner_rules,
    run_rules,
    system_rules,
)
from outrider.server.browser.recipe_hooks import RunRecipes
from outrider.server.browser.recipe_store import RecipeStore
from outrider.server.browser.refs import RefMap
from outrider.server.browser.reporting import Reporter
from outrider.server.browser.run_vault import RunVault
from outrider.server.browser.secrets import Secrets
from outrider.server.browser.session_runs import borrowed, memory_cut_note, session_memory
from outrider.server.browser.side_effects import BrowserJournal
from outrider.server.browser.targets import action_target
from outrider.server.browser.tools import browser_tools, call_errors
from outrider.server.browser.turns import Targets, TurnRunner
from outrider.server.browser.validate import Validator
from outrider.server.core import validation
from outrider.server.core.errors import OutriderError
from outrider.server.core.runs.agent import RunContext
from outrider.server.core.runs.resume_gate import resumed_note
from outrider.server.models.base import Message, ModelError, ModelRequest, ToolCall
from outrider.server.models.registry import RunModels
from outrider.server.net.domains import DomainPolicy
from outrider.server.telemetry import steps, tracing
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_pb2

_NOT_BROWSER_ACTIONS = frozenset({"done", "abort"})
ROLES = ("planner", "actor", "validator", "extractor")


class BrowserRun:
    def __init__(self, ctx: RunContext, env: BrowserEnv) -> None:
        self.ctx, self.env, self.params = ctx, env, ctx.automate
        self.reporter = Reporter(ctx, env.settings.providers.prices)
        self.secrets = Secrets(ctx.redactor)
        raw_data = (
            json_format.MessageToDict(self.params.data) if self.params.HasField("data") else None
        )
        self.data_view = self.secrets.model_view(raw_data) if raw_data else None
        settings = env.settings
        self.models = RunModels(
            settings.model, settings.role_models, ctx.options.model, settings.providers
        )
        self.human = HumanControl(self)  # people watching and taking over the browser
        self.caller = ModelCaller(
            self.reporter,
            self.models,
            self.secrets.redact,
            env.browser.model_retries,
            omit_prompts=ctx.options.omit_prompts,
            pause=self.human.before_model_call,
        )
        self.refs = RefMap()
        can_ask = self.human.can_ask
        self.vault = RunVault(ctx)  # the run's profile and credentials
        credentials = self.vault.has_credentials
        self.tools = browser_tools(self.params.interactive, can_ask, credentials)
        max_actions = env.browser.max_actions_per_turn
        credential_rule = CREDENTIAL_RULE if credentials else ""
        self.run_rules = run_rules(self.params.guardrails, self.data_view, credential_rule)
        self.earlier = session_memory(ctx.session)
        self.conversation = Conversation(
            system_rules(self.params.interactive, max_actions, can_ask),
            self.run_rules,
            self.params.task,
            self.params.url,
            self.earlier,
        )
        if ctx.journal is not None and ctx.journal.earlier:  # resumed after earlier attempts
            self.conversation.add_note(resumed_note(ctx.journal.earlier))
        self.turns = TurnRunner(self, max_actions)
        self.errors = ErrorBudget(env.browser.max_consecutive_errors, env.browser.max_total_errors)
        self.repeats = RepeatGuard(env.browser.repeat_limit)
        domains = DomainPolicy.of(ctx.options.allowed_domains, ctx.options.blocked_domains)
        self.journal = BrowserJournal(ctx.journal)
        self.connection = Connection(env, self.reporter, ctx.save_artifact, domains, self.journal)
        self.connection.on_session = self.human.session_changed
        self.observer = Observer(self, env.browser)
        self.holds = HoldDecider(ctx, self.reporter, self._page_url, self.journal)
        self.validator = Validator(self)
        self.invalid_calls = 0  # the model's invalid tool calls in a row: its retries
        self.filled_form: FilledForm | None = None  # caller's values awaiting their submit
        self.endings = Endings(self.reporter, self.secrets, ctx.started_us)
        recipes = RecipeStore(ctx.store) if env.settings.recipes else None
        self.recipes = RunRecipes(self, recipes)

    def _page_url(self) -> str:
        return self.connection.session.page.url

    # the run

    async def execute(self) -> run_pb2.RunOutcome:
        self._announce()
        try:
            self.vault.open()
            self.connection.storage_state = self.vault.state
            self.endings.hold = self.vault.saves  # profile_saved comes before complete
            kept = borrowed(self.ctx.session)
            if kept is not None:
                await self.connection.borrow(kept)
            else:
                await self.connection.open(start_at=0)
            return await self.vault.drive(self, self._drive, self.env.browser.navigation_timeout)
        except OutriderError as error:  # the vault: a profile deleted meanwhile, a key missing
            return self.endings.failure(
                ae.AUTOMATE_ERROR_CODE_TASK_FAILED, error.message, reason=error.reason
            )
        except StructuredReplyFailed as failure:
            return self.endings.failure(ae.AUTOMATE_ERROR_CODE_TASK_FAILED, str(failure))
        except ModelError as error:
            return self.endings.failure(
                ae.AUTOMATE_ERROR_CODE_TASK_FAILED, f"the model failed: {error}"
            )
        except (NoBrowserAvailable, BrowserLost) as error:
            return self.endings.failure(ae.AUTOMATE_ERROR_CODE_TASK_FAILED, str(error))
        finally:
            self.endings.release()
            await self.connection.close()
            await self.vault.close()
            await self.models.aclose()

    def _announce(self) -> None:
        setup = ae.TaskSetup(
            browser_name="chromium",
            iteration_id="setup",
            task=self.params.task,
            vision=self.env.browser.vision,
            pw_cdp_endpoint_count=len(self.env.browser.cdp_endpoints),
        )
        for name in ("guardrails", "url"):
            if getattr(self.params, name):
                setattr(setup, name, getattr(self.params, name))
        spec = self.ctx.options.model or self.env.settings.model
        if spec:
            setup.provider, _, setup.model = spec.partition(":")
        if self.data_view is not None:
            json_format.ParseDict(self.data_view, setup.data)
        self.reporter.emit("task_setup", setup)
        trace_id, span_id = tracing.current_ids()  # the run's span, in the caller's trace
        trace = ae.TaskTraceContext(
            trace_id=trace_id or token_source.token_hex(16), span_id=span_id
        )
        self.reporter.emit("task_trace_context", trace)
        left_out = self.ctx.session.left_out if self.ctx.session else 0
        if left_out:
            self.reporter.status("setup", memory_cut_note(left_out))

    async def _drive(self) -> run_pb2.RunOutcome:
        plan = await self.recipes.plan(self._plan)
        self.conversation.set_plan(plan)
        await self.connection.open_start_url(self.params.url, "plan")
        self.reporter.emit(
            "task_started",
            ae.TaskStarted(
                iteration_id="plan",
                plan=plan["plan"],
                success_criteria=plan["success_criteria"],
                task=self.params.task,
                url=self.params.url,
                action_items=plan.get("action_items", []),
            ),
        )
        replayed, first = await self.recipes.replay()
        if replayed is not None:
            return replayed
        limit = validation.max_iterations(self.params)
        for step in range(first, limit + 1):
            with steps.step("automate", "iteration", "browser.step", {"outrider.step": step}):
                outcome = await self._iteration(step)
            if outcome is not None:
                return outcome
        return self.endings.failure(
            ae.AUTOMATE_ERROR_CODE_MAX_ITERATIONS,
            f"the task was not finished within {limit} iterations",
        )

    async def _plan(self) -> dict[str, Any]:
        self.reporter.emit(
            "agent_processing",
            ae.AgentProcessing(
                iteration_id="plan", operation="Planning the task", has_screenshot=False
            ),
        )
        request = ModelRequest(
            messages=(
                Message("system", planner_rules(self.params.interactive, self.run_rules)),
                Message("user", plan_request_text(self.params.task, self.params.url, self.earlier)),
            ),
            output_schema=PLAN_SCHEMA,
            role="planner",
        )
        with steps.step("automate", "plan", "browser.plan"):
            return await self.caller.structured(request, "plan")

    async def _iteration(self, step: int) -> run_pb2.RunOutcome | None:
        iteration_id = f"step-{step}"
        self.reporter.tally.steps = step
        self.reporter.emit(
            "agent_step", ae.AgentStep(current_iteration=step, iteration_id=iteration_id)
        )
        has_screenshot = await self.human.look(iteration_id)
        self.reporter.emit(
            "agent_processing",
            ae.AgentProcessing(
                iteration_id=iteration_id,
                operation="Choosing the next action",
                has_screenshot=has_screenshot,
            ),
        )
        request = self.conversation.request(self.tools, one_tool_call=self.turns.limit == 1)
        reply = await self.caller.generate(request, iteration_id)
        if reply.text:
            self.reporter.emit(
                "agent_reasoned",
                ae.AgentReasoned(
                    iteration_id=iteration_id, reasoning=self.secrets.redact(reply.text)
                ),
            )
        self.conversation.add_reply(reply)
        if not reply.tool_calls:
            self.conversation.add_note("Call one of the tools.")
            self.errors.record(False)
        turn = await self.turns.run(reply.tool_calls, iteration_id, step)
        if turn.last is not None:
            outcome = await self._conclude(turn.last, iteration_id)
            if outcome is not None:
                return outcome
        self.reporter.metrics(iteration_id, final=False)
        if self.errors.exhausted:
            return self.endings.failure(
                ae.AUTOMATE_ERROR_CODE_MAX_ERRORS,
                f"too many failed actions: {self.errors.describe()}",
            )
        return None

    async def _conclude(self, result: ActionResult, iteration_id: str) -> run_pb2.RunOutcome | None:
        """The run's end when the turn's last call was done (once validated) or abort."""
        if result.answer is not None:
            return await self.validator.validate(result.answer, iteration_id)
        if result.abort_reason is not None:
            return self.endings.aborted(result.abort_reason, iteration_id)
        return None

    # one tool call

    async def handle(
        self,
        call: ToolCall,
        iteration_id: str,
        view: str,
        turn: int,
        targets: Targets | None = None,
    ) -> ActionResult:
        """One call of a turn, chosen on `view`: refused (invalid, or a loop), not done (a person
        took the browser over since it was chosen) or carried out; its result is in the
        conversation either way."""
        async with self.human.working() as fresh:
            if not fresh:
                self.conversation.add_result(call, NOT_DONE)
                return ActionResult(False, NOT_DONE)
            refusal = self._refuse(call, iteration_id, view)
            if refusal is not None:
                self.conversation.add_result(call, refusal)
                self.errors.record(False)
                return ActionResult(False, refusal)
            self.recipes.before(call, view, turn, targets)
            result = await self.act(call, iteration_id)
        self.recipes.after(result.ok)
        self.errors.record(result.ok)
        return result

    def _refuse(self, call: ToolCall, iteration_id: str, view: str) -> str | None:
        if call.name == "request_human" and all(t.name != call.name for t in self.tools):
            return self.human.refusal(iteration_id)
        errors = call_errors(self.tools, call)
        if errors:
            self.invalid_calls += 1
            raw = struct_pb2.Value()
            json_format.ParseDict({"tool": call.name, "arguments": call.arguments}, raw)
            self.reporter.emit(
                "task_validation_error",
                ae.TaskValidationError(
                    errors=errors,
                    iteration_id=iteration_id,
                    raw_response=raw,
                    retry_count=self.invalid_calls,
                ),
            )
            return f"Invalid call: {'; '.join(errors)}"
        self.invalid_calls = 0
        if self.repeats.is_repeat(call, view):
            self.reporter.status(
                iteration_id, f"refused a repeated {call.name}: the agent is looping"
            )
            return (
                f"Refused: you already did exactly this {self.env.browser.repeat_limit} times "
                "and the page did not change. Try something different."
            )
        return None

    async def act(self, call: ToolCall, iteration_id: str) -> ActionResult:
        ref, shown = call.arguments.get("ref"), self._shown_value(call)
        action = ae.AgentAction(action=call.name, iteration_id=iteration_id)
        if ref:
            action.ref = str(ref)
            target = await action_target(
                self.connection.session, self.refs, str(ref), self.observer.last_view
            )
            if target is not None:
                action.target.CopyFrom(target)
        if shown:
            action.value = shown
        self.reporter.emit("agent_action", action)
        browser_action = call.name not in _NOT_BROWSER_ACTIONS
        await self.journal.action_starts(iteration_id, call.name)
        if browser_action:
            started = ae.BrowserActionStarted(action=call.name, iteration_id=iteration_id)
            started.MergeFrom(
                ae.BrowserActionStarted(
                    **{k: getattr(action, k) for k in ("ref", "value") if action.HasField(k)}
                )
            )
            self.reporter.emit("browser_action_started", started)
        if browser_action:
            with steps.browser_action(call.name, str(call.arguments.get("ref", ""))) as seen:
                result = await self._guarded_perform(call, iteration_id)
                seen.ok = result.ok
        else:
            result = await self._guarded_perform(call, iteration_id)
        if browser_action:
            self.reporter.tally.actions += 1
            completed = ae.BrowserActionCompleted(iteration_id=iteration_id, success=result.ok)
            if not result.ok:
                completed.error = self.secrets.redact(result.message)
            self.reporter.emit("browser_action_completed", completed)
            await self.connection.report_navigation(iteration_id)
        await self.connection.session.downloads_saved(self.env.browser.action_timeout)
        notes = "".join(f"\nNote: {line}" for line in self.connection.session.notices.take())
        self.conversation.add_result(call, self.secrets.redact(result.message + notes))
        return result

    async def _guarded_perform(self, call: ToolCall, iteration_id: str) -> ActionResult:
        return await self.connection.guarded(
            lambda: self._perform(call, iteration_id), iteration_id
        )

    def _shown_value(self, call: ToolCall) -> str:
        for key in ("value", "url", "key", "question", "answer", "reason"):
            if key in call.arguments:
                return self.secrets.redact(str(call.arguments[key]))
        if "values" in call.arguments:
            return ", ".join(map(str, call.arguments["values"]))
        return ""

    async def _perform(self, call: ToolCall, iteration_id: str) -> ActionResult:
        runner = self._runner(iteration_id)
        if call.name == "request_input":
            form = FormInput(runner, self.ctx.ask_input, self.reporter.status)
            requested = await form.request(
                list(call.arguments["refs"]), call.arguments["reason"], iteration_id
            )
            self.filled_form = form.filled
            return requested
        if call.name == "request_human":
            return await self.human.request_human(str(call.arguments["reason"]), iteration_id)
        if call.name == "wait":
            self.reporter.emit(
                "agent_waiting",
                ae.AgentWaiting(
                    iteration_id=iteration_id, seconds=float(call.arguments["seconds"])
                ),
            )
        result = await runner.run(call.name, call.arguments)
        if result.submitted and self.filled_form is not None:
            result = await self._check_submitted_form(runner, result)
        if call.name == "extract" and result.ok:
            self.reporter.emit(
                "agent_extracted",
                ae.AgentExtracted(
                    iteration_id=iteration_id, extracted_data=self.secrets.redact(result.message)
                ),
            )
        return result

    async def _check_submitted_form(
        self, runner: ActionRunner, result: ActionResult
    ) -> ActionResult:
        """After the submit that follows a form-data request: if the page rejected the caller's
        values, the caller is asked again (interactive:form_data:error) before the model goes on."""
        filled, self.filled_form = self.filled_form, None
        assert filled is not None
        form = FormInput(runner, self.ctx.ask_input, self.reporter.status)
        note = await form.after_submit(filled)
        if note is None:
            return result
        self.filled_form = form.filled
        return replace(result, message=f"{result.message}. {note}")

    def _runner(self, iteration_id: str) -> ActionRunner:
        async def gate(hold: Hold, ref: str) -> str | None:
            return await self.holds.decide(hold, ref, iteration_id)

        async def extractor(question: str, page_text: str) -> str:
            page = self.connection.session.page
            request = ModelRequest(
                messages=(
                    Message(
                        "user", extract_text(question, page_text, page.url, await page.title())
                    ),
                ),
                role="extractor",
            )
            return (await self.caller.generate(request, iteration_id)).text

        trusted = [*self.params.trusted_hostnames, *self.vault.trusted_hosts]
        firewall = Firewall(trusted, self.params.unsafe_mode)
        return ActionRunner(
            self.connection.session,
            self.refs,
            self.secrets,
            firewall,
            gate,
            extractor,
            self.env.browser.upload_dir,
            self.env.browser.action_timeout * 1000,
            self.journal,
            self.vault.fill(iteration_id),
        )
