"""Answers to interactions from any replica: applied here when this replica executes the run,
otherwise relayed to the replica that does (the agent waiting for them lives there)."""

from __future__ import annotations

from outrider.server.core.interactions import InteractionBroker
from outrider.server.core.principals import Principal
from outrider.server.core.relay import ExecutedElsewhere, Relay, executor_address
from outrider.server.core.storage import Store
from outrider.v1 import interaction_pb2 as ip


class Answers:
    def __init__(self, broker: InteractionBroker, store: Store, relay: Relay | None) -> None:
        self._broker = broker
        self._store = store
        self._relay = relay

    async def submit_input(
        self,
        interaction_id: str,
        values: list[tuple[str, str]],
        cancelled: bool,
        principal: Principal,
        run_id: str | None = None,
    ) -> ip.Interaction:
        """Answers a form-data request; with `run_id`, only one that run asked."""
        try:
            return self._broker.submit_input(interaction_id, values, cancelled, principal, run_id)
        except ExecutedElsewhere as elsewhere:
            relay, address = executor_address(self._store, self._relay, elsewhere, principal)
            return await relay.submit_input(address, interaction_id, values, cancelled, principal)

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
        try:
            return self._broker.decide_approval(
                interaction_id, decision, scope, reason, principal, run_id
            )
        except ExecutedElsewhere as elsewhere:
            relay, address = executor_address(self._store, self._relay, elsewhere, principal)
            return await relay.decide_approval(address, interaction_id, answer, principal)

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
