"""A task as a stream: the task as it is now, then its updates as the run goes on, until the
task ends or stops on a question. Built on the core's watch (everything from the run's first
event, then live), so a stream opened on any replica, at any time, sees the same task.

Where a stream stops is the A2A rule: at a terminal state, or at input-required (the client
answers with its next message, which opens the next stream). A stream that carries an answer
does not stop on the question it answered; a resubscription does not stop on the question the
task already waited on when it was opened. A client going away closes the watch, never the run
(unless the run was started with `cancelOnDisconnect`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator
from dataclasses import dataclass

from a2a.types import a2a_pb2 as a2a

from outrider.server.a2a_edge.links import Caller, CallerLinks
from outrider.server.a2a_edge.tracker import TaskTracker, Update
from outrider.server.core.runs.manager import RunManager
from outrider.v1 import run_event_pb2, run_pb2

Item = a2a.Task | Update


@dataclass(frozen=True)
class Until:
    """Where the stream stops. `snapshot_only`: after the task as it is now (tasks/get);
    `answered`: a question this stream does not stop on; `past_questions`: nor on the one
    pending when it opened (resubscribe)."""

    snapshot_only: bool = False
    answered: str = ""
    past_questions: bool = False


class TaskFollower:
    def __init__(
        self, runs: RunManager, caller: Caller, run_id: str, until: Until = Until()
    ) -> None:
        self._runs = runs
        self._caller = caller
        self._run_id = run_id
        self._until = until
        self._ignored = {until.answered} - {""}
        self.tracker: TaskTracker | None = None
        self._ended_run: run_pb2.Run | None = None  # the run, when it had ended when read

    async def items(self, cancel_on_disconnect: bool = False) -> AsyncGenerator[Item, None]:
        principal = self._caller.principal
        run = self._runs.get(self._run_id, principal)
        tracker = self.tracker = TaskTracker(run, CallerLinks(self._runs, self._caller))
        upto = run.last_sequence
        watch = self._runs.watch_batches(self._run_id, 0, principal, cancel_on_disconnect)
        async with contextlib.aclosing(watch):
            if upto == 0:
                yield self._snapshot(run)
                if self._stops_at_snapshot():
                    return
            async for batch in watch:
                if isinstance(batch, run_event_pb2.Heartbeat):
                    continue
                for event in batch:
                    updates = tracker.apply(event)
                    if event.sequence < upto:
                        continue
                    if event.sequence == upto:
                        yield self._snapshot(run)
                        if self._stops_at_snapshot():
                            return
                        continue
                    for update in updates:
                        yield update
                    if self._stops():
                        return
        async for item in self._closing():
            yield item

    def task(self) -> a2a.Task:
        """The task as of the last item."""
        assert self.tracker is not None, "items() was not started"
        return self.tracker.task(self._ended_run)

    def _snapshot(self, run: run_pb2.Run) -> a2a.Task:
        assert self.tracker is not None
        self._ended_run = run if run.HasField("end_time") else None
        if self._until.past_questions and self.tracker.pending:
            self._ignored.add(self.tracker.pending)
        return self.task()

    def _stops_at_snapshot(self) -> bool:
        return self._until.snapshot_only or self._stops()

    def _stops(self) -> bool:
        tracker = self.tracker
        assert tracker is not None
        asking = tracker.state == a2a.TASK_STATE_INPUT_REQUIRED and tracker.pending
        return tracker.ended or bool(asking and tracker.pending not in self._ignored)

    async def _closing(self) -> AsyncGenerator[Item, None]:
        """The watch ended without the run's ending among its events (the run moved to another
        replica, or was closed there): the stored run tells how it ended."""
        assert self.tracker is not None
        if self.tracker.ended:
            return
        run = self._runs.get(self._run_id, self._caller.principal)
        if not run.HasField("end_time"):
            return
        self._ended_run = run
        ref = self.tracker.ref
        yield a2a.TaskStatusUpdateEvent(
            task_id=ref.task_id, context_id=ref.context_id, status=self.task().status
        )


async def snapshot(runs: RunManager, caller: Caller, run_id: str) -> a2a.Task:
    """The task as it is now (read from the run's events)."""
    follower = TaskFollower(runs, caller, run_id, Until(snapshot_only=True))
    async with contextlib.aclosing(follower.items()) as items:
        async for _ in items:
            pass
    return follower.task()
