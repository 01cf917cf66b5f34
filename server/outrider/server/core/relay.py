"""Calls for runs another replica executes (replicas sharing a PostgreSQL store).

A cancel or an answer must reach the agent, and only the replica executing the run holds it
(form values never touch the store). Such calls are relayed to that replica, whose address the
store keeps by presence. The `Relay` itself is a transport (the gRPC edge implements it); the
core decides when to use it.
"""

from __future__ import annotations

from typing import Protocol

from outrider.server.core.errors import Unavailable, Unimplemented
from outrider.server.core.names import run_name
from outrider.server.core.principals import Principal
from outrider.server.core.starts import Started
from outrider.server.core.storage import Store
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import params_pb2, run_pb2


class Relay(Protocol):
    """Makes a call on the replica at `address`, as `principal`; its errors come back as the
    core's errors (OutriderError), a replica that cannot be reached as Unavailable."""

    async def submit_input(
        self,
        address: str,
        interaction_id: str,
        values: list[tuple[str, str]],
        cancelled: bool,
        principal: Principal,
    ) -> ip.Interaction: ...

    async def decide_approval(
        self,
        address: str,
        interaction_id: str,
        answer: tuple[int, int, str],
        principal: Principal,
    ) -> ip.Interaction: ...

    async def cancel(
        self, address: str, run_id: str, reason: str, principal: Principal
    ) -> run_pb2.Run: ...

    async def start(
        self,
        address: str,
        params: params_pb2.AutomateParams | params_pb2.ResearchParams,
        options: params_pb2.RunOptions,
        principal: Principal,
        request_id: str,
    ) -> Started: ...


class ExecutedElsewhere(Unimplemented):
    """The local path's verdict: the run is active, and another replica executes it."""

    def __init__(self, run_id: str, interaction: str = "") -> None:
        what = f"{interaction} belongs to {run_name(run_id)}, which" if interaction else ""
        super().__init__(
            f"{what or run_name(run_id) + ' is a run'} another replica executes; set the same "
            "OUTRIDER_CLUSTER_SECRET on every replica so that any of them relays the call there",
            reason="RUN_ON_ANOTHER_REPLICA",
        )
        self.run_id = run_id


def executor_address(
    store: Store, relay: Relay | None, elsewhere: ExecutedElsewhere, principal: Principal
) -> tuple[Relay, str]:
    """Where to relay a call the local path refused with `elsewhere`; errors say why not."""
    if relay is None:
        raise elsewhere
    if principal.relayed:  # it was relayed here because this replica executed the run
        raise Unavailable(
            f"{run_name(elsewhere.run_id)} is no longer executed by the replica this call was "
            "relayed to; try again",
            reason="RUN_MOVED",
        )
    address = store.executor_address(elsewhere.run_id)
    if address is None:
        raise Unavailable(
            f"the replica executing {run_name(elsewhere.run_id)} is gone; another replica "
            "takes the run over shortly (failover)",
            reason="EXECUTOR_LOST",
        )
    return relay, address


def worker_address(store: Store) -> str:
    """Where an API-only replica sends a new run: the least busy live worker."""
    address = store.pick_worker()
    if address is None:
        raise Unavailable(
            "no worker replica is up to execute the run (OUTRIDER_ROLE=worker or all)",
            reason="NO_WORKER",
        )
    return address
