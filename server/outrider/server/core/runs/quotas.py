"""Per-principal quotas: concurrent runs and a start rate (token bucket), apart from the
server-wide limit, so one busy caller cannot take every slot from the others."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from outrider.server.core.errors import ResourceExhausted
from outrider.server.core.principals import Principal


@dataclass(frozen=True)
class QuotaDefaults:
    """What a principal without its own limits gets; 0 means unlimited."""

    max_concurrent_runs: int = 0
    starts_per_minute: float = 0.0
    start_burst: int = 5


@dataclass
class _Bucket:
    tokens: float
    refilled: float  # clock reading of the last refill


class Quotas:
    def __init__(
        self, defaults: QuotaDefaults, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._defaults = defaults
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}

    def check_concurrency(self, principal: Principal, active: int) -> None:
        """Refuses when `principal` already has its maximum of active runs."""
        limit = principal.limits.max_concurrent_runs
        limit = self._defaults.max_concurrent_runs if limit is None else limit
        if limit and active >= limit:
            raise ResourceExhausted(
                f"principal {principal.id!r} has {active} active runs and live sessions, its "
                "maximum",
                retry_after=5.0,
                reason="PRINCIPAL_RUN_LIMIT",
            )

    def take_start(self, principal: Principal) -> None:
        """Spends one start token, or refuses with the time until the next one."""
        rate, burst = self._rate(principal)
        if not rate:
            return
        now = self._clock()
        bucket = self._buckets.setdefault(principal.id, _Bucket(float(burst), now))
        per_second = rate / 60.0
        bucket.tokens = min(float(burst), bucket.tokens + (now - bucket.refilled) * per_second)
        bucket.refilled = now
        if bucket.tokens < 1.0:
            raise ResourceExhausted(
                f"principal {principal.id!r} starts runs faster than {rate:g} per minute",
                retry_after=(1.0 - bucket.tokens) / per_second,
                reason="PRINCIPAL_START_RATE",
            )
        bucket.tokens -= 1.0

    def give_back_start(self, principal: Principal) -> None:
        """Returns the token of a start refused after `take_start` (by a limit checked later)."""
        bucket = self._buckets.get(principal.id)
        if bucket is not None:
            bucket.tokens = min(float(self._rate(principal)[1]), bucket.tokens + 1.0)

    def _rate(self, principal: Principal) -> tuple[float, int]:
        limits = principal.limits
        rate = limits.starts_per_minute
        burst = limits.start_burst
        return (
            self._defaults.starts_per_minute if rate is None else rate,
            max(1, self._defaults.start_burst if burst is None else burst),
        )
