"""One statement the write-behind writer sends (`writer`), with what it needs to know of it: the
event it announces, the run whose ownership fences it, the bytes it carries, and how it is sent
again on a new server (`replay`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Write:
    sql: str
    params: Sequence[Any]
    announces: tuple[str, int] | None = None  # (run id, sequence) of an appended event
    # The run whose ownership the statement checks: it returns a row when it wrote, none when
    # another process owns the run now (see WriteBehind.fenced_out).
    fenced: str | None = None
    weight: int = 0  # bytes of artifact data it carries (see WriteBehind.backlog_bytes)
    # How it is sent again on a new server (see `replay`): "" as `sql`; another statement (a
    # stricter fence: a replay must not take a run back); None: never (not idempotent, or it
    # judges other processes by a presence they may not have taken back yet).
    replay: str | None = ""
    run_id: str | None = None  # the run it belongs to, when not `fenced` (forgotten on delete)

    def statement(self, replaying: bool) -> str:
        return (self.replay or self.sql) if replaying else self.sql
