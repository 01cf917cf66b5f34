"""Runs whose task contains a text, or that carry given labels: a bounded scan in the store's
order, newest first.

The task and the labels live inside each run's stored body, which no SQL of either backend
can read, so the runs are read page by page and matched here. One listing call looks through at
most SCAN_BUDGET runs: when they hold fewer matches than asked for, the page is short (maybe
empty) and its token resumes the scan where it stopped, so no call takes long however rare the
text is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from outrider.server.core.errors import InvalidArgument
from outrider.server.core.storage import Store
from outrider.v1 import run_pb2

SCAN_BUDGET = 2000
COUNT_BUDGET = 20_000  # runs a count looks through before it answers "at least"
MAX_TEXT_CHARS = 200
_BATCH = 250

Cursor = tuple[int, str]
Filters = tuple[Iterable[int], int, str | None]  # states, kind, tenant


@dataclass(frozen=True)
class RunMatch:
    """What a run must hold besides the store's filters: `text` in its task (ignoring case),
    every one of `labels`, a state changed at `updated_since_us` or later, started by
    `created_by`, created within [`created_since_us`, `created_until_us`) (0: unbounded)."""

    text: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    updated_since_us: int = 0
    created_by: str = ""
    created_since_us: int = 0
    created_until_us: int = 0

    def __bool__(self) -> bool:
        return bool(
            self.text
            or self.labels
            or self.updated_since_us
            or self.created_by
            or self.created_since_us
            or self.created_until_us
        )

    def __call__(self, run: run_pb2.Run) -> bool:
        if any(run.labels.get(key) != value for key, value in self.labels.items()):
            return False
        if run.update_time.ToMicroseconds() < self.updated_since_us:
            return False
        if self.created_by and run.created_by != self.created_by:
            return False
        created = run.create_time.ToMicroseconds()
        if created < self.created_since_us:
            return False
        if self.created_until_us and created >= self.created_until_us:
            return False
        return self.text.casefold() in task_text(run).casefold()

    def older_than_wanted(self, run: run_pb2.Run) -> bool:
        """The run was created before the range: so were all after it, newest first."""
        return run.create_time.ToMicroseconds() < self.created_since_us

    def start(self, before: Cursor | None) -> Cursor | None:
        """Where a scan newest first begins: at the range's end when it has one."""
        if self.created_until_us and (before is None or before[0] > self.created_until_us):
            return (self.created_until_us, "")
        return before


@dataclass(frozen=True)
class Found:
    runs: list[run_pb2.Run]  # up to limit + 1 matches, newest first
    resume: Cursor | None  # where the scan stopped with runs left to look at; None at the end


def task_text(run: run_pb2.Run) -> str:
    """What a search looks in: a browser run's task, a research run's query."""
    return run.automate.task if run.HasField("automate") else run.research.query


def check_text(text: str, field: str = "task_contains") -> str:
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidArgument.single(field, f"must be at most {MAX_TEXT_CHARS} characters")
    return text.strip()


def find_runs(
    store: Store, limit: int, before: Cursor | None, filters: Filters, match: RunMatch
) -> Found:
    """Up to `limit` + 1 runs older than `before` that `match`, within `filters`."""
    states, kind, tenant = filters
    wanted = list(states)
    found: list[run_pb2.Run] = []
    scanned = 0
    cursor = match.start(before)
    while scanned < SCAN_BUDGET:
        batch = store.list_runs(_BATCH, cursor, wanted, kind, tenant)
        for run in batch:
            scanned += 1
            cursor = (run.create_time.ToMicroseconds(), run.name.removeprefix("runs/"))
            if match.older_than_wanted(run):
                return Found(found, None)
            if match(run):
                found.append(run)
                if len(found) > limit:
                    return Found(found, None)
        if len(batch) < _BATCH:
            return Found(found, None)
    return Found(found, cursor)


def count_runs(store: Store, filters: Filters, match: RunMatch) -> int:
    """How many runs within `filters` `match`: exact, or COUNT_BUDGET's matches at most."""
    states, kind, tenant = filters
    if not match:
        return store.count_runs(states, kind, tenant)
    counted, scanned, cursor = 0, 0, None
    while scanned < COUNT_BUDGET:
        batch = store.list_runs(_BATCH, cursor, list(states), kind, tenant)
        scanned += len(batch)
        counted += sum(1 for run in batch if match(run))
        if len(batch) < _BATCH:
            break
        last = batch[-1]
        cursor = (last.create_time.ToMicroseconds(), last.name.removeprefix("runs/"))
    return counted
