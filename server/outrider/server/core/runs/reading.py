"""Reading runs back: one run, pages of them (filtered, searched), counts, and their event
streams from any sequence on. A run executed here is read from memory (its newest state), any
other from the store.

Every call takes the calling principal: it needs the read scope (a principal may always follow
the runs it started), and it reaches only runs of its own tenant (an admin reaches all); another
tenant's run is NOT_FOUND, like a missing one.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import replace

from outrider.server.core import paging
from outrider.server.core.errors import InvalidArgument, NotFound
from outrider.server.core.events.log import EventLog, WatchBatch, WatchItem
from outrider.server.core.interactions.answer_links import AnswerLinks
from outrider.server.core.names import run_id_from, run_name
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.runs import search
from outrider.server.core.runs.execution import ActiveRun
from outrider.server.core.runs.stream_checks import Reauthenticate, checked
from outrider.server.core.storage import ACTIVE_STATES, Store
from outrider.v1 import run_event_pb2, run_pb2

# (run id, principal) of a stream whose consumer left before the run ended
OnDisconnect = Callable[[str, Principal], None]


class RunReader:
    def __init__(
        self,
        store: Store,
        log: EventLog,
        active: dict[str, ActiveRun],
        page_tokens: paging.PageTokens,
        answer_links: AnswerLinks,
        heartbeat_interval: float,
    ) -> None:
        self._store = store
        self._log = log
        self._active = active  # the runs executed here (execution.Executions.active)
        self._page_tokens = page_tokens
        self._answer_links = answer_links
        self._heartbeat_interval = heartbeat_interval

    def get(self, run_id: str, principal: Principal) -> run_pb2.Run:
        principal.require(Scope.RUNS_READ)
        return self.find(run_id, principal.tenant_filter)

    def find(self, run_id: str, tenant: str | None) -> run_pb2.Run:
        """The run, when it belongs to `tenant` (any tenant for None), else NotFound."""
        active = self._active.get(run_id)
        if active is not None and tenant in (None, active.run.tenant):
            run = run_pb2.Run()
            run.CopyFrom(active.run)
            run.last_sequence = self._log.last_sequence(run_id) or 0
            return run
        stored = None if active is not None else self._store.get_run(run_id, tenant)
        if stored is None:
            raise NotFound(f"{run_name(run_id)} does not exist")
        return stored

    def list(
        self,
        size: int,
        token: str,
        states: list[int],
        kind: int,
        principal: Principal,
        task_contains: str = "",
        match: search.RunMatch | None = None,
    ) -> tuple[list[run_pb2.Run], str]:
        """Runs of the principal's tenant (every tenant for an admin), newest first; with
        `task_contains`, only those whose task holds that text, with `match` only those it
        matches (see runs/search.py: a page may then be short, even empty, and still have a
        next token)."""
        principal.require(Scope.RUNS_READ)
        limit = paging.page_size(size)
        _check_filters(states, kind)
        text = search.check_text(task_contains)
        match = replace(match, text=text) if match else search.RunMatch(text)
        filters = (states, kind, principal.tenant_filter)
        bound = paging.filter_text(
            states=states,
            kind=kind,
            task_contains=text,
            labels=sorted(f"{k}={v}" for k, v in match.labels.items()),
            updated_since_us=match.updated_since_us,
            created_by=match.created_by,
            created_since_us=match.created_since_us,
            created_until_us=match.created_until_us,
        )
        before = self._page_tokens.decode("runs", token, filters=bound)
        found = search.find_runs(self._store, limit, before, filters, match) if match else None
        rows = found.runs if found else self._store.list_runs(limit + 1, before, *filters)
        runs = paging.within_bytes(
            [
                self.find(run_id_from(r.name), None) if r.state in ACTIVE_STATES else r
                for r in rows[:limit]
            ]
        )
        if len(rows) > limit or len(runs) < len(rows):
            last = runs[-1]
            return runs, self._page_tokens.encode(
                "runs", last.create_time.ToMicroseconds(), run_id_from(last.name), bound
            )
        resume = found.resume if found else None
        return runs, self._page_tokens.encode("runs", *resume, bound) if resume else ""

    def events(
        self, run_id: str, after: int, limit: int, principal: Principal
    ) -> Sequence[run_event_pb2.RunEvent]:
        """Up to `limit` of the run's events after sequence `after`, as stored (redacted), for
        pages that show a run as a whole (its steps, its replay) rather than follow it."""
        principal.require(Scope.RUNS_READ)
        self.find(run_id, principal.tenant_filter)
        if after < 0 or limit < 1:
            raise InvalidArgument.single("after", "must not be negative (and limit positive)")
        return self._store.events_after(run_id, after, limit)

    def count(
        self, states: Sequence[int], kind: int, principal: Principal, match: search.RunMatch
    ) -> int:
        """How many runs `list` would page through (see search.count_runs)."""
        principal.require(Scope.RUNS_READ)
        _check_filters(states, kind)
        return search.count_runs(self._store, (states, kind, principal.tenant_filter), match)

    def watch_batches(
        self,
        run_id: str,
        after: int,
        principal: Principal,
        on_disconnect: OnDisconnect | None = None,
        answer_links: bool = False,
        reauthenticate: Reauthenticate | None = None,
    ) -> AsyncGenerator[WatchBatch, None]:
        """Events after `after`, then live ones until the run ends, in the lists they became
        available in. Errors raise now, not lazily. A principal may always follow the runs it
        started (a streaming start needs no read scope); other runs of its tenant need
        `runs.read`. When the consumer goes away before the run ends, `on_disconnect` is told.
        With `answer_links`, request events of pending interactions carry their answer link
        when the principal may be shown it. With `reauthenticate`, the caller's credential is
        checked again before each batch and heartbeat (see stream_checks)."""
        if after < 0:
            raise InvalidArgument.single("after_sequence", "must not be negative")
        run = self.find(run_id, principal.tenant_filter)
        if run.created_by != principal.id:
            principal.require(Scope.RUNS_READ)
        self._log.check_cursor(run_id, after, run.last_sequence)
        batches = self._log.follow_batches(run_id, after, self._heartbeat_interval)
        links = self._answer_links if answer_links and self._answer_links.enabled else None
        batches = checked(batches, run.created_by, principal, reauthenticate, links)
        if on_disconnect is None:
            return batches
        return _tell_if_left(run_id, batches, principal, on_disconnect)


async def _tell_if_left(
    run_id: str,
    batches: AsyncGenerator[WatchBatch, None],
    principal: Principal,
    on_disconnect: OnDisconnect,
) -> AsyncGenerator[WatchBatch, None]:
    finished = False
    try:
        async with contextlib.aclosing(batches):
            async for batch in batches:
                yield batch
        finished = True
    finally:
        if not finished:
            on_disconnect(run_id, principal)


async def one_by_one(batches: AsyncGenerator[WatchBatch, None]) -> AsyncGenerator[WatchItem, None]:
    """Batches of events as single events (heartbeats pass as they are)."""
    async with contextlib.aclosing(batches):
        async for batch in batches:
            if isinstance(batch, run_event_pb2.Heartbeat):
                yield batch
                continue
            for event in batch:
                yield event


def _check_filters(states: Sequence[int], kind: int) -> None:
    for index, state in enumerate(states):
        if state not in run_pb2.RunState.values() or state == run_pb2.RUN_STATE_UNSPECIFIED:
            raise InvalidArgument.single(f"states[{index}]", f"unknown run state {state}")
    if kind not in run_pb2.RunKind.values():
        raise InvalidArgument.single("kind", f"unknown run kind {kind}")
