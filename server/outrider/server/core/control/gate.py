"""The gate a browser run's agent passes before it touches the browser or calls its model, shut
while a person has control of the browser (a takeover).

The agent's browser work (reading the page, an action) happens inside `working()`, which waits
while a person drives; a takeover (`take()`) shuts the gate, then waits until the work in
progress is done, so the person and the agent never act on the page at once. A run has one
agent task, so `busy` counts that task's sections; waits for a person inside one (a question,
the agent's own request for a takeover) leave the gate open to a takeover (`idle()`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager


class ControlGate:
    def __init__(self) -> None:
        self.driven = False  # a person has control (or is being given it)
        self.busy = 0  # the agent's browser work in progress
        self.generation = 0  # takeovers begun so far
        self._seen = 0  # the generation when the agent last read the page
        self._changed = asyncio.Event()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _until(self, ready: Callable[[], bool]) -> None:
        while not ready():
            await self._changed.wait()

    @asynccontextmanager
    async def working(self) -> AsyncIterator[bool]:
        """The agent's browser work; it waits while a person drives. Yields False when a person
        has had the browser since the agent last read the page (what it decided is stale)."""
        await self._until(lambda: not self.driven)
        self.busy += 1
        try:
            yield self.generation == self._seen
        finally:
            self.busy -= 1
            self._notify()

    @asynccontextmanager
    async def idle(self) -> AsyncIterator[None]:
        """Inside `working()`, a wait for a person: a takeover may begin meanwhile, and the work
        goes on only once it has ended."""
        if not self.busy:
            yield
            return
        self.busy -= 1
        self._notify()
        try:
            yield
        finally:
            try:
                await self._until(lambda: not self.driven)
            finally:
                self.busy += 1

    def read_page(self) -> None:
        """The agent has just read the page: what it decides next is fresh."""
        self._seen = self.generation

    @property
    def page_is_stale(self) -> bool:
        """A person has had the browser since the agent last read the page."""
        return self.generation != self._seen

    async def before_model_call(self) -> bool:
        """No model call while a person drives: waits until they hand back; True when it waited.
        Inside browser work (a model call an action makes) it never waits."""
        if self.busy or not self.driven:
            return False
        await self._until(lambda: not self.driven)
        return True

    async def take(self, within: float) -> None:
        """Shuts the gate and returns once the agent's browser work in progress is done;
        TimeoutError (the gate open again) when it is not done `within` seconds."""
        self.driven = True
        self.generation += 1
        self._notify()
        try:
            async with asyncio.timeout(within):
                await self._until(lambda: self.busy == 0)
        except TimeoutError:
            self.release()
            raise

    def release(self) -> None:
        """The person's control ended: the agent may go on."""
        self.driven = False
        self._notify()
