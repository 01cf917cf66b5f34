"""Cancels of runs another replica executes: relayed to it once its presence is known (see
`relay.executor_address`), now (`CancelRun`) or in the background (a cancel on a stream, a
caller that left a run started with cancel-on-disconnect)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from outrider.server.core.cluster.relay import ExecutedElsewhere, Relay, executor_address, relay_for
from outrider.server.core.principals import Principal
from outrider.server.core.storage import Store
from outrider.v1 import run_pb2

log = logging.getLogger(__name__)


class RelayedCancels:
    """`find(run_id)`: the run as it is now (for one that ended meanwhile)."""

    def __init__(
        self,
        store: Store,
        relay: Relay | None,
        patience: float,
        find: Callable[[str], run_pb2.Run],
    ) -> None:
        self._store = store
        self._relay = relay
        self._patience = patience
        self._find = find
        self._background: set[asyncio.Task[run_pb2.Run]] = set()

    async def cancel(
        self, elsewhere: ExecutedElsewhere, reason: str, principal: Principal
    ) -> run_pb2.Run:
        """The executor's answer: the run once its terminal events are written (a run that
        ended meanwhile, as it ended)."""
        return await self._relayed(
            relay_for(self._relay, elsewhere, principal), elsewhere, reason, principal
        )

    def cancel_soon(self, elsewhere: ExecutedElsewhere, reason: str, principal: Principal) -> None:
        """Relays in the background; what cannot be relayed at all raises now."""
        relay = relay_for(self._relay, elsewhere, principal)
        task = asyncio.create_task(self._relayed(relay, elsewhere, reason, principal))
        self._background.add(task)
        task.add_done_callback(_log_failure)
        task.add_done_callback(self._background.discard)

    async def _relayed(
        self, relay: Relay, elsewhere: ExecutedElsewhere, reason: str, principal: Principal
    ) -> run_pb2.Run:
        run_id = elsewhere.run_id
        address = await executor_address(self._store, run_id, self._patience, "cancel")
        if address is None:
            return self._find(run_id)
        return await relay.cancel(address, run_id, reason, principal)


def _log_failure(task: asyncio.Task[run_pb2.Run]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("a cancel relayed to the executing replica failed: %s", task.exception())
