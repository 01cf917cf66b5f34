"""The A2A task operations over the core: a message starts a run (a new task) or answers the
question its task waits on; a task is read, followed, resubscribed to, or cancelled.

A task is a run and its id is the run id. A new task keeps the client's contextId, or gets a
new one; a message that names a task belongs to that task's context (another is refused). A
context is a session: its tasks run one after another in the same browser (contexts.py).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass

from a2a.types import a2a_pb2 as a2a
from a2a.utils.errors import (
    InvalidParamsError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from a2a.utils.task import apply_history_length
from google.protobuf import json_format

from outrider.server.a2a_edge.contexts import ContextSessions, context_of
from outrider.server.a2a_edge.following import Item, TaskFollower, Until, snapshot
from outrider.server.a2a_edge.inbound import run_spec
from outrider.server.a2a_edge.links import Caller
from outrider.server.a2a_edge.parts import TaskRef
from outrider.server.a2a_edge.replies import FormReply, read_reply
from outrider.server.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
)
from outrider.server.core.request_ids import Started
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.runs.starting import RunSpec
from outrider.server.core.sessions.manager import SessionManager
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_pb2

CANCEL_REASON = "cancelled by an A2A client"


@dataclass(frozen=True)
class Begun:
    """The run a message went to, the question it answered (if it answered one), and whether
    the run ends when its client goes away."""

    run_id: str
    answered: str = ""
    cancel_on_disconnect: bool = False


class A2ATasks:
    def __init__(self, runs: RunManager, sessions: SessionManager | None = None) -> None:
        self._runs = runs
        self._contexts = ContextSessions(runs, sessions)

    # messages

    async def begin(self, request: a2a.SendMessageRequest, caller: Caller) -> Begun:
        message = request.message
        if message.role != a2a.ROLE_USER:
            raise InvalidArgument.single("message.role", "must be ROLE_USER")
        if message.task_id:
            return await self._answer(message, caller)
        context = context_of(message, caller)
        spec = run_spec(message, context)
        await self._contexts.join(spec, message, context, caller)
        # The messageId is the start's idempotency key: the same message sent again (a retry
        # after a lost answer) is the same task. A2A lets agents use it so, not refuse a reuse:
        # the id sent again with another message starts a task of its own (the TCK does that).
        try:
            started = await self._start(spec, caller, message.message_id)
        except AlreadyExists:
            started = await self._start(spec, caller, "")
        return Begun(_id(started.run), cancel_on_disconnect=spec.options.cancel_on_disconnect)

    async def _start(self, spec: RunSpec, caller: Caller, request_id: str) -> Started:
        """Returns once committed: another replica can read the task once it is named."""
        return await self._runs.start(
            spec,
            caller.principal,
            params_at="message.data.",
            options_at="message.data.options.",
            request_id=request_id,
        )

    async def _answer(self, message: a2a.Message, caller: Caller) -> Begun:
        run = self._task_run(message.task_id, caller)
        context = TaskRef.of(run).context_id
        if message.context_id and message.context_id != context:
            raise InvalidParamsError(
                f"task {message.task_id} belongs to context {context}, not {message.context_id}"
            )
        if run.HasField("end_time"):
            state = run_pb2.RunState.Name(run.state).removeprefix("RUN_STATE_").lower()
            raise UnsupportedOperationError(
                f"task {message.task_id} has ended ({state}) and takes no more messages; "
                "send a new message (in the same context if you like) to start another task"
            )
        question = self._waiting_on(_id(run), caller)
        reply = read_reply(message, question)
        question_id = question.name.removeprefix("interactions/")
        answers, principal = self._runs.answers, caller.principal
        if isinstance(reply, FormReply):
            await answers.submit_input(
                question_id, reply.values, reply.declined, principal, _id(run)
            )
        else:
            answer = (reply.decision, reply.scope, reply.reason)
            await answers.decide_approval(question_id, answer, principal, _id(run))
        return Begun(_id(run), answered=question_id)

    def _waiting_on(self, run_id: str, caller: Caller) -> ip.Interaction:
        pending, _ = self._runs.interactions.list(
            run_id, [ip.INTERACTION_STATE_PENDING], 10, "", caller.principal
        )
        if not pending:
            raise FailedPrecondition(
                f"task {run_id} is working and asks nothing now; a message on a task answers "
                "its question while it is input-required",
                reason="NOTHING_ASKED",
            )
        return pending[0]

    async def send(self, request: a2a.SendMessageRequest, caller: Caller) -> a2a.Task:
        """message/send: the task once it ends or asks something (or at once, with
        `returnImmediately`)."""
        begun = await self.begin(request, caller)
        until = Until(
            snapshot_only=request.configuration.return_immediately, answered=begun.answered
        )
        follower = TaskFollower(self._runs, caller, begun.run_id, until)
        async for _ in follower.items(begun.cancel_on_disconnect):
            pass
        return apply_history_length(follower.task(), request.configuration)

    async def stream(
        self, request: a2a.SendMessageRequest, caller: Caller
    ) -> AsyncGenerator[Item, None]:
        """message/stream: the task, then its updates until it ends or asks something."""
        begun = await self.begin(request, caller)
        follower = TaskFollower(self._runs, caller, begun.run_id, Until(answered=begun.answered))
        async for item in follower.items(begun.cancel_on_disconnect):
            yield _trimmed(item, request.configuration)

    # tasks

    async def get(self, request: a2a.GetTaskRequest, caller: Caller) -> a2a.Task:
        self._task_run(request.id, caller)
        return apply_history_length(await snapshot(self._runs, caller, request.id), request)

    async def cancel(self, request: a2a.CancelTaskRequest, caller: Caller) -> a2a.Task:
        run = self._task_run(request.id, caller)
        if run.HasField("end_time"):
            raise TaskNotCancelableError(f"task {request.id} has already ended")
        reason = json_format.MessageToDict(request.metadata).get("reason", CANCEL_REASON)
        await self._runs.cancel(request.id, str(reason), caller.principal)
        return await snapshot(self._runs, caller, request.id)

    async def resubscribe(
        self, request: a2a.SubscribeToTaskRequest, caller: Caller
    ) -> AsyncGenerator[Item, None]:
        """tasks/resubscribe: the task now, then its updates until it ends or asks something
        new; a dropped stream is picked up here, the run never stopped."""
        run = self._task_run(request.id, caller)
        if run.HasField("end_time"):
            raise UnsupportedOperationError(f"task {request.id} has ended: nothing to follow")
        follower = TaskFollower(self._runs, caller, request.id, Until(past_questions=True))
        async for item in follower.items():
            yield item

    def _task_run(self, task_id: str, caller: Caller) -> run_pb2.Run:
        try:
            return self._runs.get(task_id, caller.principal)
        except NotFound:
            raise TaskNotFoundError(f"task {task_id} does not exist") from None


def _id(run: run_pb2.Run) -> str:
    return run.name.removeprefix("runs/")


def _trimmed(item: Item, configuration: a2a.SendMessageConfiguration) -> Item:
    return apply_history_length(item, configuration) if isinstance(item, a2a.Task) else item
