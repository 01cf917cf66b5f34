"""tasks/list: the caller's tenant's runs as tasks, newest first (by creation: the store keeps
no index of status times), paged with the core's signed page tokens.

Filters: state (each A2A state is one or two run states), contextId (the runs started in that
context, plus the run whose own id it is when that run belongs to no A2A context) and
statusTimestampAfter. Tasks carry their artifacts only when asked (`includeArtifacts`), which
reads each run's events; otherwise a task is built from the run alone.
"""

from __future__ import annotations

from a2a.types import a2a_pb2 as a2a
from a2a.utils.constants import DEFAULT_LIST_TASKS_PAGE_SIZE
from a2a.utils.task import apply_history_length, validate_history_length, validate_page_size

from outrider.server.a2a_edge.following import snapshot
from outrider.server.a2a_edge.links import Caller, CallerLinks
from outrider.server.a2a_edge.parts import CONTEXT_LABEL
from outrider.server.a2a_edge.tracker import STATE_OF_RUN, TaskTracker
from outrider.server.core.errors import NotFound
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.runs.search import RunMatch
from outrider.v1 import run_pb2

RUN_STATES: dict[int, list[int]] = {
    a2a_state: [run_state for run_state, mapped in STATE_OF_RUN.items() if mapped == a2a_state]
    for a2a_state in set(STATE_OF_RUN.values())
}


async def list_tasks(
    runs: RunManager, request: a2a.ListTasksRequest, caller: Caller
) -> a2a.ListTasksResponse:
    validate_history_length(request)
    size = request.page_size if request.HasField("page_size") else DEFAULT_LIST_TASKS_PAGE_SIZE
    validate_page_size(size)
    states = RUN_STATES.get(request.status, []) if request.status else []
    if request.status and not states:  # rejected, auth-required: no run is ever in them
        return a2a.ListTasksResponse(page_size=size)
    labels = {CONTEXT_LABEL: request.context_id} if request.context_id else {}
    since = request.status_timestamp_after.ToMicroseconds()
    match = RunMatch(labels=labels, updated_since_us=since)
    found, token = runs.list(size, request.page_token, states, 0, caller.principal, "", match)
    total = runs.count(states, 0, caller.principal, match)
    if request.context_id and not token:
        own = _run_named_by_context(runs, request, caller, states)
        found, total = found + own, total + len(own)
    tasks = [await _task(runs, run, request, caller) for run in found]
    return a2a.ListTasksResponse(
        tasks=tasks, next_page_token=token, page_size=size, total_size=total
    )


def _run_named_by_context(
    runs: RunManager, request: a2a.ListTasksRequest, caller: Caller, states: list[int]
) -> list[run_pb2.Run]:
    """A run started over gRPC or REST is its own context: its id names it."""
    try:
        run = runs.get(request.context_id, caller.principal)
    except NotFound:
        return []
    since = request.status_timestamp_after.ToMicroseconds()
    if CONTEXT_LABEL in run.labels or (states and run.state not in states):
        return []
    return [run] if run.update_time.ToMicroseconds() >= since else []


async def _task(
    runs: RunManager, run: run_pb2.Run, request: a2a.ListTasksRequest, caller: Caller
) -> a2a.Task:
    if request.include_artifacts:
        task = await snapshot(runs, caller, run.name.removeprefix("runs/"))
    else:
        tracker = TaskTracker(run, CallerLinks(runs, caller))
        tracker.state = STATE_OF_RUN.get(run.state, a2a.TASK_STATE_SUBMITTED)
        task = tracker.task(run)
        task.status.timestamp.CopyFrom(run.update_time)
    return apply_history_length(task, request)
