"""Following a run for one tool call: progress per event, questions to the client, the result.

Handshake-era sessions get questions pushed as elicitation requests while the events keep
coming (several may be open; one closed elsewhere, by another caller or by expiry, is withdrawn).
On 2026-07-28 the call returns an InputRequiredResult at the first question, with a sealed
request state (run, cursor, steps asked); the client's retry applies the answers and follows on
from the cursor. Either way the run goes on while the client thinks, and a question it never
answers expires as any other.
"""

from __future__ import annotations

import contextlib
import json
import logging

import anyio
from anyio.abc import TaskGroup

from mcp import types
from outrider.mcp.asking import Questioner, Step
from outrider.mcp.backend import Backend
from outrider.mcp.peer import ElicitParams, Peer
from outrider.mcp.progress import Narrator
from outrider.mcp.questions import Question, question_from, question_of, resolved_by
from outrider.mcp.results import Seen, run_result
from outrider.v1 import run_event_pb2, run_pb2

log = logging.getLogger(__name__)
Result = types.CallToolResult | types.InputRequiredResult
NO_QUESTIONS = (
    "This run was started by a client that cannot answer questions (it declared no "
    "elicitation): the agent asked for no form data, and actions needing approval were refused."
)
_TAIL = 12  # events read back from a finished run's end for its result


class Watch:
    def __init__(self, backend: Backend, peer: Peer, run: str, after: int = 0) -> None:
        self.backend = backend
        self.peer = peer
        self.run = run
        self.after = after
        self.narrator = Narrator()
        self.seen = Seen()
        self.questions = Questioner(backend, peer.abilities)
        self._asked: set[str] = set()  # interactions asked during this call
        self._closed: set[str] = set()  # interactions closed during this call
        self._waiting: dict[str, anyio.CancelScope] = {}  # questions the client is considering
        self._linked: set[str] = set()  # interactions whose answer page the client opened

    async def _tell(self, event: run_event_pb2.RunEvent) -> None:
        self.after = event.sequence
        self.seen.see(event)
        message = self.narrator.message(event)
        if message is not None:
            await self.peer.progress(float(event.sequence), message)

    # handshake era (or a client that cannot be asked): one call follows the run to its end

    async def push(self, pending: list[Question]) -> None:
        async with anyio.create_task_group() as tasks:
            for question in pending:
                self._start(tasks, question)
            async with contextlib.aclosing(self.backend.follow(self.run, self.after)) as events:
                async for event in events:
                    await self._tell(event)
                    asked = question_of(event)
                    if asked is not None:
                        self._start(tasks, asked)
                    await self._withdraw(resolved_by(event))
            tasks.cancel_scope.cancel()

    def _start(self, tasks: TaskGroup, question: Question) -> None:
        if self.peer.abilities.asks and question.interaction not in self._asked:
            self._asked.add(question.interaction)
            tasks.start_soon(self._ask, question)

    async def _withdraw(self, closed: str | None) -> None:
        """A question closed (answered anywhere, expired): stop asking the client about it."""
        if closed is None:
            return
        self._closed.add(closed)
        waiting = self._waiting.pop(closed, None)
        if waiting is not None:
            waiting.cancel()
        if closed in self._linked:
            self._linked.discard(closed)
            await self.peer.elicit_complete(closed.removeprefix("interactions/"))

    async def _ask(self, question: Question) -> None:
        try:
            step = await self.questions.first_step(question)
            while step is not None and step.params is not None:
                result = await self._elicit(question.interaction, step.params)
                if result is None:  # withdrawn
                    return
                if step.kind == "url" and result.action == "accept":
                    self._linked.add(question.interaction)
                step = await self.questions.answer(step, result)
        except Exception as error:  # the client failed to ask (or answer); the run goes on
            log.info("asking %s failed: %s", question.interaction, error)
            await self.questions.decline_unasked(
                question.interaction, f"The client could not be asked: {error}"
            )

    async def _elicit(self, interaction: str, params: ElicitParams) -> types.ElicitResult | None:
        """The client's answer; None when the question closed meanwhile (only waiting on the
        client is interrupted, never an answer being applied)."""
        if interaction in self._closed:
            return None
        with anyio.CancelScope() as waiting:
            self._waiting[interaction] = waiting
            try:
                return await self.peer.elicit(params)
            finally:
                self._waiting.pop(interaction, None)
        return None

    # 2026-07-28: questions are returned, the call retried with the answers

    async def until_question(self, pending: list[Question]) -> Result | None:
        """The input request of the first question that can be asked; None once the run ended."""
        for question in pending:
            step = await self.questions.first_step(question)
            if step is not None:
                return self.input_required([step])
        async with contextlib.aclosing(self.backend.follow(self.run, self.after)) as events:
            async for event in events:
                await self._tell(event)
                asked = question_of(event)
                step = await self.questions.first_step(asked) if asked else None
                if step is not None:
                    return self.input_required([step])
        return None

    def input_required(self, steps: list[Step]) -> types.InputRequiredResult:
        requests: dict[str, types.InputRequest] = {
            step.key: types.ElicitRequest(params=step.params)
            for step in steps
            if step.params is not None
        }
        state = {"run": self.run, "after": self.after, "asked": [s.saved() for s in steps]}
        return types.InputRequiredResult(input_requests=requests, request_state=json.dumps(state))

    async def answered(self, saved: list[dict[str, object]], responses: object) -> list[Step]:
        """Applies the retry's answers to the steps asked; the next steps (the answer page)."""
        given = responses if isinstance(responses, dict) else {}
        following: list[Step] = []
        for raw in saved:
            step = Step.restored(dict(raw))
            result = given.get(step.key)
            if not isinstance(result, types.ElicitResult):
                result = types.ElicitResult(action="cancel")
            after = await self.questions.answer(step, result)
            if after is not None:
                following.append(after)
        return following

    # the result

    async def result(self) -> types.CallToolResult:
        run = await self.backend.get(self.run)
        if run.HasField("outcome") and self.seen.research is None and self.seen.automate is None:
            await self._read_tail(run)
        notes = list(self.questions.notes)
        if _asked_nothing(run):
            notes.append(NO_QUESTIONS)
        pending = None
        if not run.HasField("outcome"):
            pending = [question_from(i) for i in await self.backend.pending(self.run)]
        return run_result(run, self.seen, notes, pending)

    async def _read_tail(self, run: run_pb2.Run) -> None:
        """The terminal events of a run that ended before this watch (for report, citations)."""
        start = max(0, run.last_sequence - _TAIL)
        async with contextlib.aclosing(self.backend.follow(self.run, start)) as events:
            async for event in events:
                self.seen.see(event)


def _asked_nothing(run: run_pb2.Run) -> bool:
    automate = run.automate if run.HasField("automate") else None
    return automate is not None and not automate.interactive and run.options.refuse_held_actions
