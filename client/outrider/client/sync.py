"""The blocking client: the asyncio client driven on a private event loop in a daemon thread.

with Client("localhost:50051") as client:
    for event in client.research("What is gRPC?", mode="fast"):
        print(event_name(event))
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from types import TracebackType
from typing import Any, TypeVar

from outrider.client.aio import AsyncClient, Page, Params
from outrider.client.requests import Options
from outrider.client.session import Answer, AsyncInteractiveSession
from outrider.v1 import interaction_pb2, run_event_pb2, run_pb2, run_service_pb2, session_pb2

T = TypeVar("T")


class _Loop:
    """An event loop in its own thread, and ways to run things on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coroutine: Awaitable[T]) -> T:
        return asyncio.run_coroutine_threadsafe(_await(coroutine), self.loop).result()

    def call(self, function: Callable[[], T]) -> T:
        return self.run(_call(function))

    def iterate(self, iterator: AsyncIterator[T]) -> Iterator[T]:
        try:
            while True:
                try:
                    yield self.run(anext(iterator))
                except StopAsyncIteration:
                    return
        finally:
            close = getattr(iterator, "aclose", None)
            if close is not None:
                self.run(close())

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join()
            self.loop.close()


async def _await(awaitable: Awaitable[T]) -> T:
    return await awaitable


async def _call(function: Callable[[], T]) -> T:
    return function()


class InteractiveSession:
    """The blocking face of AsyncInteractiveSession; answers return concurrent futures."""

    def __init__(self, loop: _Loop, session: AsyncInteractiveSession) -> None:
        self._loop, self._session = loop, session

    @property
    def run(self) -> str:
        return self._session.run

    def __enter__(self) -> InteractiveSession:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._loop.run(self._session.__aexit__(kind, error, tb))

    def __iter__(self) -> Iterator[run_event_pb2.RunEvent]:
        return self._loop.iterate(self._session.__aiter__())

    def answer_form(
        self, request_id: str, values: Mapping[str, str], *, decline: bool = False
    ) -> concurrent.futures.Future[Answer]:
        return self._bridge(lambda: self._session.answer_form(request_id, values, decline=decline))

    def approve(
        self, approval_id: str, *, always: bool = False, reason: str = ""
    ) -> concurrent.futures.Future[Answer]:
        return self._bridge(
            lambda: self._session.approve(approval_id, always=always, reason=reason)
        )

    def reject(self, approval_id: str, *, reason: str = "") -> concurrent.futures.Future[Answer]:
        return self._bridge(lambda: self._session.reject(approval_id, reason=reason))

    def cancel(self, reason: str = "") -> None:
        self._loop.call(lambda: self._session.cancel(reason))

    def _bridge(
        self, send: Callable[[], asyncio.Future[Answer]]
    ) -> concurrent.futures.Future[Answer]:
        future = self._loop.call(send)
        return asyncio.run_coroutine_threadsafe(_await(future), self._loop.loop)


class Client:
    """Blocking client with the same calls as AsyncClient; see there for the arguments."""

    def __init__(self, target: str, **kwargs: Any) -> None:
        self._loop = _Loop()
        self._async: AsyncClient = self._loop.call(lambda: AsyncClient(target, **kwargs))

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Closes the channel and stops the loop thread; idempotent."""
        if self._loop.loop.is_running():
            self._loop.run(self._async.close())
        self._loop.stop()

    def automate(
        self, task: str, *, options: Options | None = None, **params: Any
    ) -> Iterator[run_event_pb2.RunEvent]:
        """`params` include `request_id` (see AsyncClient)."""
        stream = self._loop.call(lambda: self._async.automate(task, options=options, **params))
        return self._loop.iterate(stream)

    def research(
        self, query: str, *, options: Options | None = None, **params: Any
    ) -> Iterator[run_event_pb2.RunEvent]:
        stream = self._loop.call(lambda: self._async.research(query, options=options, **params))
        return self._loop.iterate(stream)

    def stream(self, params: Params, **kwargs: Any) -> Iterator[run_event_pb2.RunEvent]:
        return self._loop.iterate(self._loop.call(lambda: self._async.stream(params, **kwargs)))

    def events(self, run: str, *, after: int = 0) -> Iterator[run_event_pb2.RunEvent]:
        return self._loop.iterate(self._loop.call(lambda: self._async.events(run, after=after)))

    def interact(self, params: Params, **kwargs: Any) -> InteractiveSession:
        session = self._loop.call(lambda: self._async.interact(params, **kwargs))
        return InteractiveSession(self._loop, session)

    def attach(self, run: str, *, after: int = 0) -> InteractiveSession:
        session = self._loop.call(lambda: self._async.attach(run, after=after))
        return InteractiveSession(self._loop, session)

    def create_run(self, params: Params, **kwargs: Any) -> run_pb2.Run:
        return self._loop.run(self._async.create_run(params, **kwargs))

    def get_run(self, run: str, **kwargs: Any) -> run_pb2.Run:
        return self._loop.run(self._async.get_run(run, **kwargs))

    def list_runs(self, **kwargs: Any) -> Page[run_pb2.Run]:
        return self._loop.run(self._async.list_runs(**kwargs))

    def cancel_run(self, run: str, **kwargs: Any) -> run_pb2.Run:
        return self._loop.run(self._async.cancel_run(run, **kwargs))

    def delete_run(self, run: str, **kwargs: Any) -> run_service_pb2.DeleteRunResponse:
        return self._loop.run(self._async.delete_run(run, **kwargs))

    def read_artifact(self, artifact: str, **kwargs: Any) -> bytes:
        return self._loop.run(self._async.read_artifact(artifact, **kwargs))

    def submit_input(
        self, interaction: str, values: Mapping[str, str], **kwargs: Any
    ) -> interaction_pb2.Interaction:
        return self._loop.run(self._async.submit_input(interaction, values, **kwargs))

    def decide_approval(
        self, interaction: str, *, approve: bool, **kwargs: Any
    ) -> interaction_pb2.Interaction:
        return self._loop.run(self._async.decide_approval(interaction, approve=approve, **kwargs))

    def list_interactions(self, **kwargs: Any) -> Page[interaction_pb2.Interaction]:
        return self._loop.run(self._async.list_interactions(**kwargs))

    def get_interaction(self, interaction: str, **kwargs: Any) -> interaction_pb2.Interaction:
        return self._loop.run(self._async.get_interaction(interaction, **kwargs))

    # sessions (AsyncClient.sessions)

    def create_session(self, kind: str = "automate", **kwargs: Any) -> session_pb2.Session:
        return self._loop.run(self._async.sessions.create(kind, **kwargs))

    def get_session(self, session: str) -> session_pb2.Session:
        return self._loop.run(self._async.sessions.get(session))

    def list_sessions(self, **kwargs: Any) -> tuple[list[session_pb2.Session], str]:
        return self._loop.run(self._async.sessions.list(**kwargs))

    def end_session(self, session: str, **kwargs: Any) -> session_pb2.Session:
        return self._loop.run(self._async.sessions.end(session, **kwargs))

    def session_events(self, session: str, *, after: int = 0) -> Iterator[session_pb2.SessionEvent]:
        events = self._loop.call(lambda: self._async.sessions.events(session, after=after))
        return self._loop.iterate(events)
