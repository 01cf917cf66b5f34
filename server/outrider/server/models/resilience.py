"""Timeouts and retries shared by the provider adapters.

Each adapter disables its SDK's own retries and classifies the SDK's exceptions into a Failure;
`with_retries` retries 429s, 5xx, timeouts and lost connections with exponential backoff, honours
a provider's Retry-After (capped), and raises ModelError naming the model and the last failure
once the retries are spent. Other failures (400, 401, ...) raise ModelError at once.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from outrider.server.models.base import ModelError

T = TypeVar("T")
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryPolicy:
    timeout: float = 120.0
    max_retries: int = 3
    base_delay: float = 1.0
    max_delay: float = 30.0


@dataclass(frozen=True)
class Failure:
    """What went wrong in one attempt, in words for the error message."""

    message: str
    retryable: bool
    retry_after: float | None = None  # seconds the provider asked us to wait


def is_retryable_status(status: int) -> bool:
    return status == 429 or status == 408 or status >= 500


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from a Retry-After (seconds or HTTP date) or retry-after-ms header."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def error_detail(body: object, fallback: str) -> str:
    """The provider's own message from a JSON error body such as {"error": {"message": ...}}."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
    return fallback


def backoff(policy: RetryPolicy, retry: int, failure: Failure) -> float:
    """Seconds to wait before retry number `retry` (1-based)."""
    if failure.retry_after is not None:
        return min(failure.retry_after, policy.max_delay)
    return min(policy.base_delay * 2.0 ** (retry - 1), policy.max_delay)


async def with_retries(
    name: str,
    policy: RetryPolicy,
    attempt: Callable[[], Awaitable[T]],
    classify: Callable[[Exception], Failure | None],
) -> T:
    """`attempt()` under the policy's timeout, retried while failures are retryable.

    `classify` turns an SDK exception into a Failure, or None for exceptions that are not the
    provider's (those propagate unchanged)."""
    tries = policy.max_retries + 1
    for number in range(1, tries + 1):
        try:
            async with asyncio.timeout(policy.timeout):
                return await attempt()
        except TimeoutError:
            failure = Failure(f"timed out after {policy.timeout:g} s", retryable=True)
        except Exception as error:
            classified = classify(error)
            if classified is None:
                raise
            failure = classified
        if not failure.retryable:
            raise ModelError(f"{name}: {failure.message}")
        if number == tries:
            raise ModelError(
                f"{name}: {failure.message} (gave up after {tries} attempts; the provider "
                "may be overloaded or unreachable)"
            )
        delay = backoff(policy, number, failure)
        log.warning("%s: %s; retry %d in %.2f s", name, failure.message, number, delay)
        await asyncio.sleep(delay)
    raise AssertionError("unreachable")
