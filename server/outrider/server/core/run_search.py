"""Runs whose task contains a text: a bounded scan in the store's order, newest first.

The task lives inside each run's stored body, which no SQL of either backend can read, so the
runs are read page by page and matched here. One listing call looks through at most SCAN_BUDGET
runs: when they hold fewer matches than asked for, the page is short (maybe empty) and its token
resumes the scan where it stopped, so no call takes long however rare the text is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from outrider.server.core.errors import InvalidArgument
from outrider.server.core.storage import Store
from outrider.v1 import run_pb2

SCAN_BUDGET = 2000
MAX_TEXT_CHARS = 200
_BATCH = 250

Cursor = tuple[int, str]


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
    store: Store,
    limit: int,
    before: Cursor | None,
    filters: tuple[Iterable[int], int, str | None],
    text: str,
) -> Found:
    """Up to `limit` + 1 runs older than `before` whose task contains `text` (ignoring case),
    within `filters` (states, kind, tenant)."""
    states, kind, tenant = filters
    wanted = list(states)
    needle = text.casefold()
    found: list[run_pb2.Run] = []
    scanned = 0
    cursor = before
    while scanned < SCAN_BUDGET:
        batch = store.list_runs(_BATCH, cursor, wanted, kind, tenant)
        for run in batch:
            scanned += 1
            cursor = (run.create_time.ToMicroseconds(), run.name.removeprefix("runs/"))
            if needle in task_text(run).casefold():
                found.append(run)
                if len(found) > limit:
                    return Found(found, None)
        if len(batch) < _BATCH:
            return Found(found, None)
    return Found(found, cursor)
