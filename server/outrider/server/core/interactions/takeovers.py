"""Takeovers of a run's browser as interactions: opened by the agent (request_human) or a person,
given to a driver for a lease that their activity extends, and ended once, handed back or
declined. core/control/ leads them; this keeps their record and events."""

from __future__ import annotations

import asyncio

from outrider.server.core import clock
from outrider.server.core.interactions.entries import (
    Finishing,
    OpenInteraction,
)
from outrider.server.core.interactions.life import InteractionLife
from outrider.server.core.interactions.resolutions import (
    Answer,
    TakeoverAnswer,
    id_of,
)
from outrider.v1 import browser_control_pb2 as bc
from outrider.v1 import interaction_pb2 as ip


class TakeoverInteractions(InteractionLife):
    def open_takeover(
        self, run_id: str, request: bc.TakeoverRequested, finishing: Finishing
    ) -> tuple[ip.Interaction, asyncio.Future[Answer]]:
        """Opens a takeover and emits its request; the future gets its one resolution."""
        entry = self._open_interaction(run_id, ip.INTERACTION_KIND_TAKEOVER, request)
        entry.finishing = finishing
        self._log.append(run_id, entry.interaction.takeover)
        return entry.interaction, entry.future

    def start_takeover(
        self, interaction_id: str, driver: str, lease: float, url: str
    ) -> ip.Interaction:
        """Gives the open takeover to `driver` until `lease` seconds from now."""
        entry = self._open[interaction_id]
        control = entry.interaction.takeover_control
        previous, control.driver = control.driver, driver
        control.start_time.CopyFrom(clock.timestamp(clock.now_us()))
        self._extend(entry, lease)
        started = bc.TakeoverStarted(
            takeover_id=interaction_id,
            driver=driver,
            expire_time=entry.interaction.expire_time,
            url=url,
            previous_driver=previous if previous != driver else "",
        )
        self._log.append(entry.run_id, started)
        self._on_change(entry.run_id)
        return entry.interaction

    async def wait_takeover(self, interaction_id: str) -> TakeoverAnswer:
        """Waits for the resolution of a takeover the agent asked for (request_human); if the
        agent is cancelled meanwhile, the takeover ends with its run."""
        answer = await self._wait(self._open[interaction_id])
        assert isinstance(answer, TakeoverAnswer)
        return answer

    def extend_takeover(self, interaction_id: str, lease: float) -> None:
        """The person in control is still there: their control lasts `lease` seconds more."""
        entry = self._open.get(interaction_id)
        if entry is not None:
            self._extend(entry, lease)

    def _extend(self, entry: OpenInteraction, lease: float) -> None:
        interaction_id = id_of(entry.interaction)
        entry.interaction.expire_time.CopyFrom(
            clock.timestamp(clock.now_us() + int(lease * 1_000_000))
        )
        if entry.timer:
            entry.timer.cancel()
        entry.timer = asyncio.get_running_loop().call_later(lease, self._expire, interaction_id)
        self._store.save_interaction(entry.interaction, (interaction_id, entry.run_id))

    def resolve_takeover(self, interaction_id: str, answer: TakeoverAnswer) -> ip.Interaction:
        """Ends an open takeover (handed back or declined); one that has ended is returned as
        it ended."""
        entry = self._open.get(interaction_id)
        if entry is None:
            return self._get(interaction_id)
        entry.interaction.declined = answer.ending == bc.TAKEOVER_ENDING_DECLINED
        entry.interaction.resolved_by = answer.resolved_by
        entry.interaction.takeover_control.note = answer.note
        self._finish(entry, ip.INTERACTION_STATE_RESOLVED, answer)
        return entry.interaction
