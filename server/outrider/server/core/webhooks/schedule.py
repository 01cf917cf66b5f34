"""What an attempt's answer means for its delivery and its endpoint: delivered, tried again on
the retry schedule (with jitter, later when the endpoint says Retry-After), given up, or the
endpoint disabled (410 Gone, or failing without a break for longer than allowed)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from outrider.server.core.storage.webhook_rows import DELIVERED, FAILED, PENDING

_US = 1_000_000
JITTER = 0.2  # each wait is the schedule's, give or take a fifth
GONE = 410


@dataclass(frozen=True)
class Reply:
    """What one attempt came to: the endpoint's status (None: no answer: refused, timed out,
    or not sent because the egress guard refused the address), what went wrong, how long it
    took, and the endpoint's Retry-After in seconds."""

    status: int | None
    error: str = ""
    seconds: float = 0.0
    retry_after: float | None = None

    @property
    def delivered(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


@dataclass(frozen=True)
class Policy:
    """`retries`: seconds before each attempt after the first (the spec's: 5 s, 5 min, 30 min,
    2, 5, 10, 14, 20 and 24 h); `disable_after`: seconds an endpoint may fail without a break."""

    retries: Sequence[float]
    disable_after: float

    def wait_before(self, attempt: int, retry_after: float | None) -> float | None:
        """Seconds before attempt number `attempt` (2, 3, ...), None past the schedule."""
        if attempt - 2 >= len(self.retries):
            return None
        wait = self.retries[attempt - 2] * random.uniform(1 - JITTER, 1 + JITTER)
        if retry_after is not None:  # honoured, but never past the schedule's longest wait
            wait = max(wait, min(retry_after, max(self.retries)))
        return wait


@dataclass(frozen=True)
class Verdict:
    state: int
    due_us: int
    disable: str = ""  # why the endpoint is disabled now; "" to keep it


def judge(
    policy: Policy, reply: Reply, attempt: int, now_us: int, failing_since_us: int | None
) -> Verdict:
    """The delivery's state after attempt number `attempt`, and the endpoint's fate."""
    if reply.delivered:
        return Verdict(DELIVERED, now_us)
    if reply.status == GONE:
        return Verdict(FAILED, now_us, "the endpoint answered 410 Gone")
    failing_for = (now_us - (failing_since_us or now_us)) / _US
    if failing_since_us is not None and failing_for >= policy.disable_after:
        return Verdict(FAILED, now_us, f"every delivery failed for {_duration(failing_for)}")
    wait = policy.wait_before(attempt + 1, reply.retry_after)
    if wait is None:
        return Verdict(FAILED, now_us)
    return Verdict(PENDING, now_us + int(wait * _US))


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
