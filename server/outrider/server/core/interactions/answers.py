"""Answers to interactions from any replica: applied here when this replica executes the run,
otherwise relayed to the replica that does (the agent waiting for them lives there). An answer
given while the store or the executor's presence is briefly gone (a database restart) waits for
them, up to the presence patience, rather than being refused. An answer whose truth depends on a
takeover under way (its run's replica was lost: repeats.py) waits for it too, as long again. An
answer is acknowledged once it is committed, so a retry after any loss finds it taken."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from outrider.server.core.cluster.relay import (
    ExecutedElsewhere,
    Relay,
    executor_address,
    relay_for,
    through_outage,
)
from outrider.server.core.interactions.broker import InteractionBroker
from outrider.server.core.interactions.repeats import Unsettled
from outrider.server.core.principals import Principal
from outrider.server.core.storage import Store
from outrider.v1 import interaction_pb2 as ip

# Applies an answer here (patiently or not, see repeats.verdict); raises ExecutedElsewhere when
# another replica executes its run.
_Local = Callable[[bool], ip.Interaction]
# Relays it to the replica at an address.
_Relayed = Callable[[Relay, str], Awaitable[ip.Interaction]]


_SETTLE_POLL = 0.1  # seconds between two looks while a takeover is under way
# Seconds, at least, an answer waits for a resumed run to ask its question again (the run
# starts its task again first): then it can name the new question.
_ASKED_AGAIN_WAIT = 10.0


class Answers:
    def __init__(
        self, broker: InteractionBroker, store: Store, relay: Relay | None, patience: float
    ) -> None:
        self._broker = broker
        self._store = store
        self._relay = relay
        self._patience = patience  # seconds to wait for a store or an executor's presence
        self._shared = store.event_feed() is not None  # replicas: a run may be taken over

    async def submit_input(
        self,
        interaction_id: str,
        values: list[tuple[str, str]],
        cancelled: bool,
        principal: Principal,
        run_id: str | None = None,
    ) -> ip.Interaction:
        """Answers a form-data request; with `run_id`, only one that run asked."""

        def here(patient: bool) -> ip.Interaction:
            return self._broker.submit_input(
                interaction_id, values, cancelled, principal, run_id, patient
            )

        async def there(relay: Relay, address: str) -> ip.Interaction:
            return await relay.submit_input(address, interaction_id, values, cancelled, principal)

        return await through_outage(lambda: self._answer(here, there, principal), self._patience)

    async def decide_approval(
        self,
        interaction_id: str,
        answer: tuple[int, int, str],
        principal: Principal,
        run_id: str | None = None,
    ) -> ip.Interaction:
        """Decides an approval (`answer` = decision, scope, reason); with `run_id`, only one
        that run asked."""
        decision, scope, reason = answer

        def here(patient: bool) -> ip.Interaction:
            return self._broker.decide_approval(
                interaction_id, decision, scope, reason, principal, run_id, patient
            )

        async def there(relay: Relay, address: str) -> ip.Interaction:
            return await relay.decide_approval(address, interaction_id, answer, principal)

        return await through_outage(lambda: self._answer(here, there, principal), self._patience)

    async def _answer(
        self,
        here: _Local,
        there: _Relayed,
        principal: Principal,
    ) -> ip.Interaction:
        settle_by: float | None = None  # while a takeover is under way: how long to wait
        address: str | None = None
        while True:
            patient = self._shared and (settle_by is None or time.monotonic() < settle_by)
            try:
                answered = here(patient)
                await self._store.committed()  # accepted means recorded: a retry finds it
                return answered
            except Unsettled:
                wait = max(self._patience, _ASKED_AGAIN_WAIT)
                settle_by = settle_by or time.monotonic() + wait
                await asyncio.sleep(_SETTLE_POLL)
            except ExecutedElsewhere as elsewhere:
                relay = relay_for(self._relay, elsewhere, principal)
                if address is not None:  # looked here again since: it is open there
                    return await there(relay, address)
                address = await executor_address(
                    self._store, elsewhere.run_id, self._patience, "answer"
                )
                if address is None:  # the run ended meanwhile: the question's state answers
                    answered = here(False)
                    await self._store.committed()
                    return answered

    def hold_input(
        self,
        interaction_id: str,
        values: list[tuple[str, str]],
        principal: Principal,
        run_id: str | None = None,
    ) -> list[str] | None:
        """Part of a form-data answer, kept until the rest arrives (see
        `InteractionBroker.hold_input`); None when another replica executes the run: parts are
        not relayed (the whole answer then goes one way)."""
        try:
            return self._broker.hold_input(interaction_id, values, principal, run_id)
        except ExecutedElsewhere:
            return None
