"""Messages a test sends on a bidirectional stream, fed one by one as the test decides."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import params_pb2


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


def interactive_automate(task: str, url: str) -> Outbox:
    """An outbox that starts an interactive browser run of `task` at `url`, the fixture sites'
    host trusted (so a submit there asks no approval)."""
    params = params_pb2.AutomateParams(
        task=task, url=url, interactive=True, trusted_hostnames=["127.0.0.1"]
    )
    return Outbox(isv.InteractRequest(start=isv.InteractStart(automate=params)))
