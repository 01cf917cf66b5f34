"""Run budgets the loop enforces: failed actions (consecutive and total) and repeated actions."""

from __future__ import annotations

import hashlib
import json
from collections import deque
from dataclasses import dataclass, field

from outrider.server.models.base import ToolCall


@dataclass
class ErrorBudget:
    max_consecutive: int
    max_total: int
    consecutive: int = 0
    total: int = 0

    def record(self, ok: bool) -> None:
        self.consecutive = 0 if ok else self.consecutive + 1
        self.total += 0 if ok else 1

    @property
    def exhausted(self) -> bool:
        return self.consecutive >= self.max_consecutive or self.total >= self.max_total

    def describe(self) -> str:
        return (
            f"{self.consecutive} failed actions in a row (limit {self.max_consecutive}), "
            f"{self.total} in all (limit {self.max_total})"
        )


@dataclass
class RepeatGuard:
    """Refuses an action identical to the last `limit` ones on a page that did not change in
    between: the agent is stuck in a loop. The same action on a page it keeps changing ("Next
    page" through a paginated table) is progress, not a loop."""

    limit: int
    _recent: deque[str] = field(default_factory=deque)

    def is_repeat(self, call: ToolCall, page_state: str) -> bool:
        """`page_state` is what the action acts on (the view the model chose it from)."""
        # Focus follows every click, so it does not count as a change of the page.
        digest = hashlib.sha256(page_state.replace(" [active]", "").encode()).hexdigest()
        key = json.dumps([call.name, call.arguments, digest], sort_keys=True)
        stuck = len(self._recent) >= self.limit and all(k == key for k in self._recent)
        self._recent.append(key)
        while len(self._recent) > self.limit:
            self._recent.popleft()
        return stuck
