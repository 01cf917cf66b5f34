"""The start-rate bucket refills with time: checked against a clock the test advances."""

from __future__ import annotations

import pytest

from outrider.server.core.errors import ResourceExhausted
from outrider.server.core.principals import CALLER_SCOPES, Limits, Principal
from outrider.server.core.runs.quotas import QuotaDefaults, Quotas


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_tokens_refill_at_the_rate_up_to_the_burst() -> None:
    clock = Clock()
    quotas = Quotas(QuotaDefaults(), clock)
    caller = Principal("p", "t", CALLER_SCOPES, Limits(starts_per_minute=30, start_burst=2))
    quotas.take_start(caller)
    quotas.take_start(caller)
    with pytest.raises(ResourceExhausted) as caught:
        quotas.take_start(caller)
    assert caught.value.reason == "PRINCIPAL_START_RATE"
    assert caught.value.retry_after == pytest.approx(2.0)
    clock.now += 1.0  # half a token: still refused, with half the wait
    with pytest.raises(ResourceExhausted) as caught:
        quotas.take_start(caller)
    assert caught.value.retry_after == pytest.approx(1.0)
    clock.now += 60.0  # refills to the burst, not beyond
    quotas.take_start(caller)
    quotas.take_start(caller)
    with pytest.raises(ResourceExhausted):
        quotas.take_start(caller)


def test_other_principals_and_unlimited_ones_are_unaffected() -> None:
    quotas = Quotas(QuotaDefaults(starts_per_minute=1, start_burst=1), Clock())
    first, second = (Principal(n, "t", CALLER_SCOPES) for n in ("a", "b"))
    quotas.take_start(first)
    with pytest.raises(ResourceExhausted):
        quotas.take_start(first)
    quotas.take_start(second)
    unlimited = Principal("c", "t", CALLER_SCOPES, Limits(starts_per_minute=0))
    for _ in range(100):
        quotas.take_start(unlimited)
