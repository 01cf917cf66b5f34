"""Messages a test sends on a bidirectional stream, fed one by one as the test decides."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from outrider.v1 import interaction_service_pb2 as isv


class Outbox:
    def __init__(self, first: isv.InteractRequest) -> None:
        self._queue: asyncio.Queue[isv.InteractRequest | None] = asyncio.Queue()
        self._queue.put_nowait(first)

    def send(self, message: isv.InteractRequest) -> None:
        self._queue.put_nowait(message)

    def close(self) -> None:
        self._queue.put_nowait(None)

    async def __aiter__(self) -> AsyncIterator[isv.InteractRequest]:
        while (message := await self._queue.get()) is not None:
            yield message
