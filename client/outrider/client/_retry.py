"""Starts that are safe to send again. Every start carries a request id (a new UUID unless the
caller gives one): after UNAVAILABLE, when the server may or may not have started the run, the
same start is sent again with the same id, and the server answers with the run it started, if
it did, rather than starting a second one."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

import grpc

from outrider.client._grpc import is_disconnect, translate

T = TypeVar("T")


@dataclass(frozen=True)
class StartRetry:
    """How a start that got UNAVAILABLE (or lost its connection before the run was known) is
    sent again with its request id: by default 4 attempts in all, waiting a random time of up
    to 0.2 s, 0.4 s, then 0.8 s between them (full jitter: clients that failed together do not
    come back together), never more than `max_backoff`."""

    max_attempts: int = 4
    initial_backoff: timedelta = timedelta(milliseconds=200)
    max_backoff: timedelta = timedelta(seconds=5)

    def backoff(self, attempt: int) -> float:
        """Seconds to wait after the `attempt`-th attempt failed."""
        ceiling = self.initial_backoff.total_seconds() * 2.0 ** (attempt - 1)
        return random.uniform(0.0, min(ceiling, self.max_backoff.total_seconds()))

    def retries(self, error: grpc.RpcError, attempt: int) -> bool:
        """Whether the `attempt`-th attempt's error is worth another one."""
        return is_disconnect(error) and attempt < self.max_attempts


def request_id_for(given: str | None) -> str:
    """The request id a start sends: the caller's as it is ("" sends none), else a new UUID."""
    return str(uuid.uuid4()) if given is None else given


async def retried(attempt: Callable[[], Awaitable[T]], policy: StartRetry | None) -> T:
    """`attempt()` until it succeeds or fails for good; errors become the client's own. None:
    one attempt (a start without a request id is not safe to send twice)."""
    policy = policy or StartRetry(max_attempts=1)
    made = 0
    while True:
        made += 1
        try:
            return await attempt()
        except grpc.RpcError as error:
            if not policy.retries(error, made):
                raise translate(error) from None
        await asyncio.sleep(policy.backoff(made))


@dataclass(frozen=True)
class Restart:
    """Opens a streaming start again (same request, same id) while its run is not known yet."""

    open: Callable[[], Any]
    policy: StartRetry
