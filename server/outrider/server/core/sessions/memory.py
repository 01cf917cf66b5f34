"""The bounded summary of a session's earlier runs that its next run's model sees: each run's task,
how it ended, its answer (or report), the page it ended on and the data its caller gave (secret
values only as their placeholders; form answers were never stored). Newest runs are kept first;
what does not fit the budget is left out, and the summary says how many runs that is."""

from __future__ import annotations

import json
from dataclasses import dataclass

from google.protobuf import json_format

from outrider.server.core.storage import Store
from outrider.server.core.storage.session_contract import SessionRunRow
from outrider.v1 import run_pb2

ANSWER_CHARS = 1500  # of one run's answer or report
DATA_CHARS = 600  # of one run's data


@dataclass(frozen=True)
class Memory:
    text: str  # "" when the session had no run yet
    earlier: int  # runs of the session so far
    left_out: int  # of those, how many the text leaves out


def remember(store: Store, session_id: str, budget: int) -> Memory:
    rows = [row for row in store.session_runs(session_id) if row.final is not None]
    entries = []
    for number, row in enumerate(rows, start=1):
        run = store.get_run(row.run_id)
        if run is not None:
            entries.append(_entry(number, row, run))
    kept: list[str] = []
    used = 0
    for entry in reversed(entries):  # newest first, while they fit
        if used + len(entry) > budget:
            break
        kept.insert(0, entry)
        used += len(entry)
    left_out = len(entries) - len(kept)
    note = [f"({left_out} earlier runs are left out to fit the memory budget.)"] if left_out else []
    return Memory("\n".join(note + kept), len(rows), left_out)


def _entry(number: int, row: SessionRunRow, run: run_pb2.Run) -> str:
    """One run, numbered in the session (its name would cost tokens and tell the model nothing)."""
    research = run.kind == run_pb2.RUN_KIND_RESEARCH
    asked = run.research.query if research else run.automate.task
    lines = [
        f"Run {number}: {'question' if research else 'task'} {_cut(asked, ANSWER_CHARS)!r}",
        f"  Outcome: {_outcome(run.outcome)}",
    ]
    if run.outcome.result:
        label = "Report" if research else "Answer"
        lines.append(f"  {label}: {_cut(run.outcome.result, ANSWER_CHARS)}")
    if row.end_url:
        lines.append(f"  Ended on: {_cut(row.end_title, 200)!r} <{_cut(row.end_url, 500)}>")
    if not research and run.automate.HasField("data"):
        data = json.dumps(json_format.MessageToDict(run.automate.data), sort_keys=True)
        lines.append(f"  Data the caller gave: {_cut(data, DATA_CHARS)}")
    return "\n".join(lines)


def _outcome(outcome: run_pb2.RunOutcome) -> str:
    if outcome.success:
        return "succeeded"
    if outcome.error_code == "CANCELLED":
        return f"cancelled ({_cut(outcome.error_message, 200)})"
    return f"failed, {outcome.error_code}: {_cut(outcome.error_message, 300)}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... (cut, {len(text):,} characters)"
