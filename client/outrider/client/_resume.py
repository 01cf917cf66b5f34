"""Following a run's (or a session's) events across dropped connections: each event exactly
once, in order."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import grpc

from outrider.client._grpc import is_disconnect, translate
from outrider.client._retry import Restart
from outrider.v1 import run_event_pb2, session_pb2

Opener = Callable[[str, int], Any]  # (run name, after sequence) -> a server-streaming call


@dataclass(frozen=True)
class ResumePolicy:
    """How long to keep reconnecting a dropped stream before giving up with UnavailableError:
    by default 10 attempts with exponential backoff from 0.1 s to 3 s, about 18 s in all."""

    max_attempts: int = 10
    initial_backoff: timedelta = timedelta(milliseconds=100)
    max_backoff: timedelta = timedelta(seconds=3)

    def backoff(self, attempt: int) -> float:
        delay: float = self.initial_backoff.total_seconds() * 2.0 ** (attempt - 1)
        return min(delay, self.max_backoff.total_seconds())


Streamed = run_event_pb2.RunEvent | session_pb2.SessionEvent


@dataclass
class Cursor:
    """Where a stream is: the run (or session) it watches and the newest sequence delivered."""

    run: str = ""
    last_sequence: int = 0

    def accept(self, event: Streamed) -> bool:
        """True for an event not delivered yet (resumed streams never repeat one)."""
        if event.sequence <= self.last_sequence:
            return False
        watched = event.run if isinstance(event, run_event_pb2.RunEvent) else event.session
        self.run, self.last_sequence = watched, event.sequence
        return True


async def follow(
    first: Any, reopen: Opener, policy: ResumePolicy, cursor: Cursor, restart: Restart | None = None
) -> AsyncIterator[Any]:
    """Events of `first` (a streaming call of responses with `event` or `heartbeat`), then, after
    a dropped connection, those of `reopen(run, last_sequence)`, until the run's stream ends. A
    start that failed before its run was known is opened again by `restart` (same request id)."""
    call, attempt = first, 0
    while True:
        try:
            async for response in call:
                if response.HasField("event") and cursor.accept(response.event):
                    attempt = 0
                    yield response.event
            return
        except grpc.RpcError as error:
            attempt += 1
            delay = _retry_delay(error, attempt, policy, cursor, restart)
            if delay is None:
                raise translate(error) from None
        finally:
            call.cancel()
        await asyncio.sleep(delay)
        if cursor.run:
            call = reopen(cursor.run, cursor.last_sequence)
        else:
            assert restart is not None  # without one, _retry_delay gave up
            call = restart.open()


def _retry_delay(
    error: grpc.RpcError,
    attempt: int,
    policy: ResumePolicy,
    cursor: Cursor,
    restart: Restart | None,
) -> float | None:
    """Seconds to wait before the next attempt, None to give up: a known run is resumed by the
    resume policy, a start not answered yet is sent again by its retry policy."""
    if cursor.run:
        resumes = is_disconnect(error) and attempt <= policy.max_attempts
        return policy.backoff(attempt) if resumes else None
    if restart is not None and restart.policy.retries(error, attempt):
        return restart.policy.backoff(attempt)
    return None
