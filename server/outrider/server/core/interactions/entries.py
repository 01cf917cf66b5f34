"""An interaction as the broker keeps it while it is open, and how a new one is made from the
request an agent (or a person taking over) makes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from outrider.server.core import clock
from outrider.server.core.interactions.resolutions import Answer, TakeoverAnswer
from outrider.server.core.names import interaction_name, new_id, run_name
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import browser_control_pb2 as bc
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_event_pb2 as rp

Request = ae.InteractiveFormDataRequest | rp.ApprovalRequested | bc.TakeoverRequested
# Completes a takeover's answer with how the person left the browser (URL, input count).
Finishing = Callable[[TakeoverAnswer], TakeoverAnswer]


@dataclass
class OpenInteraction:
    interaction: ip.Interaction
    run_id: str
    future: asyncio.Future[Answer]
    timer: asyncio.TimerHandle | None = None
    refs: list[str] = field(default_factory=list)
    finishing: Finishing | None = None
    held: dict[str, str] = field(default_factory=dict)  # part of an answer, given in advance


def new_interaction(run_id: str, kind: int, request: Request, ttl: float) -> ip.Interaction:
    """A pending interaction of a new id, expiring in `ttl` seconds, holding `request`."""
    interaction_id = new_id()
    now = clock.now_us()
    interaction = ip.Interaction(
        name=interaction_name(interaction_id),
        run=run_name(run_id),
        kind=kind,  # type: ignore[arg-type]
        state=ip.INTERACTION_STATE_PENDING,
        create_time=clock.timestamp(now),
        expire_time=clock.timestamp(now + int(ttl * 1_000_000)),
    )
    if isinstance(request, rp.ApprovalRequested):
        interaction.approval.CopyFrom(request)
        interaction.approval.approval_id = interaction_id
        interaction.approval.expire_time.CopyFrom(interaction.expire_time)
    elif isinstance(request, bc.TakeoverRequested):
        interaction.takeover.CopyFrom(request)
        interaction.takeover.takeover_id = interaction_id
        interaction.takeover.expire_time.CopyFrom(interaction.expire_time)
    else:
        interaction.form_data.CopyFrom(request)
        interaction.form_data.request_id = interaction_id
    return interaction
