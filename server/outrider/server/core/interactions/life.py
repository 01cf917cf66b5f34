"""An interaction's life, whatever its kind: opened (saved, its request emitted, its expiry
timed), waited on by its agent, and finished exactly once (answered, expired, cancelled with its
run, or left by a process that is gone). The broker asks and answers on top of it (`broker`)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Container

from outrider.server.core import clock, paging
from outrider.server.core.errors import NotFound
from outrider.server.core.events.log import EventLog
from outrider.server.core.interactions.entries import (
    OpenInteraction,
    Request,
    new_interaction,
)
from outrider.server.core.interactions.resolutions import (
    Answer,
    TakeoverAnswer,
    closing_answer,
    id_of,
    kind_label,
    observe_closed,
    resolution_event,
)
from outrider.server.core.names import interaction_name
from outrider.server.core.storage import Store
from outrider.server.core.webhooks.questions import NoNotices, QuestionNotices
from outrider.server.telemetry import metrics
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_event_pb2 as rp

PENDING = ip.INTERACTION_STATE_PENDING


class InteractionLife:
    def __init__(
        self,
        store: Store,
        log: EventLog,
        ttl: float,
        on_change: Callable[[str], None],
        page_tokens: paging.PageTokens,
        notices: QuestionNotices | None = None,
    ) -> None:
        self._page_tokens = page_tokens
        self._notices = notices or NoNotices()
        self._store = store
        self._log = log
        self._ttl = ttl
        self._on_change = on_change
        self._open: dict[str, OpenInteraction] = {}
        self._digests: dict[str, bytes] = {}  # of accepted answers (see broker)
        self._key = secrets.token_bytes(32)

    def _open_interaction(self, run_id: str, kind: int, request: Request) -> OpenInteraction:
        self._log.redact(run_id, request)
        interaction = new_interaction(run_id, kind, request, self._ttl)
        interaction_id = id_of(interaction)
        loop = asyncio.get_running_loop()
        entry = OpenInteraction(interaction, run_id, loop.create_future())
        entry.timer = loop.call_later(self._ttl, self._expire, interaction_id)
        self._open[interaction_id] = entry
        metrics.interaction_opened(kind_label(kind))
        with self._store.together():  # the question and its notice commit together
            self._store.save_interaction(interaction, (interaction_id, run_id))
            self._notices.waiting(interaction)
        self._on_change(run_id)
        return entry

    async def _wait(self, entry: OpenInteraction) -> Answer:
        try:
            return await asyncio.shield(entry.future)
        finally:
            if entry.timer:
                entry.timer.cancel()
            if not entry.future.done():
                self._close(entry, ip.INTERACTION_STATE_CANCELLED, rp.RESOLUTION_SOURCE_RUN_ENDED)

    def _expire(self, interaction_id: str) -> None:
        entry = self._open.get(interaction_id)
        if entry is not None:
            self._close(entry, ip.INTERACTION_STATE_EXPIRED, rp.RESOLUTION_SOURCE_EXPIRED)

    def _close(self, entry: OpenInteraction, state: int, source: int) -> None:
        self._finish(entry, state, closing_answer(entry.interaction.kind, source))

    def _finish(self, entry: OpenInteraction, state: int, answer: Answer) -> None:
        interaction_id = id_of(entry.interaction)
        if isinstance(answer, TakeoverAnswer):
            answer = entry.finishing(answer) if entry.finishing else answer
            entry.interaction.takeover_control.ending = answer.ending  # type: ignore[assignment]
        was_open = self._open.pop(interaction_id, None) is not None
        if entry.timer:
            entry.timer.cancel()
        entry.interaction.state = state  # type: ignore[assignment]
        entry.interaction.resolve_time.CopyFrom(clock.timestamp(clock.now_us()))
        if was_open:
            observe_closed(entry.interaction)
        with self._store.together():
            self._store.save_interaction(entry.interaction, (interaction_id, entry.run_id))
            self._notices.resolved(entry.interaction)
        if self._log.is_open(entry.run_id):
            self._log.append(entry.run_id, resolution_event(interaction_id, answer))
        if not entry.future.done():
            entry.future.set_result(answer)
        self._on_change(entry.run_id)

    def end_run(self, run_id: str) -> None:
        """Cancels whatever the run still has pending."""
        for entry in [e for e in self._open.values() if e.run_id == run_id]:
            self._close(entry, ip.INTERACTION_STATE_CANCELLED, rp.RESOLUTION_SOURCE_RUN_ENDED)

    def close_abandoned(self, active: Container[str] = ()) -> int:
        """At start-up: interactions a previous process left pending are cancelled, except those
        of runs still `active` (their executor or claimant closes them)."""
        pending = self._store.list_interactions(None, [PENDING], 1_000_000, None)
        stale = [i for i in pending if i.run.removeprefix("runs/") not in active]
        return self._cancel_stored(stale)

    def close_pending_of(self, run_id: str) -> int:
        """The pending interactions of a run a lost replica executed are cancelled."""
        return self._cancel_stored(self._store.list_interactions(run_id, [PENDING], 10_000, None))

    def _cancel_stored(self, stale: list[ip.Interaction]) -> int:
        for interaction in stale:
            interaction.state = ip.INTERACTION_STATE_CANCELLED
            interaction.resolve_time.CopyFrom(clock.timestamp(clock.now_us()))
            run_id = interaction.run.removeprefix("runs/")
            with self._store.together():
                self._store.save_interaction(interaction, (id_of(interaction), run_id))
                self._notices.resolved(interaction)
        return len(stale)

    def is_pending(self, interaction_id: str) -> bool:
        """Open here, or pending in the store (asked by a run another replica executes)."""
        if interaction_id in self._open:
            return True
        stored = self._store.get_interaction(interaction_id)
        return stored is not None and stored.state == PENDING

    def pending_kinds(self, run_id: str) -> set[int]:
        return {e.interaction.kind for e in self._open.values() if e.run_id == run_id}

    def stored(self, interaction_id: str) -> ip.Interaction:
        """The interaction as it is now (open here, or as stored); NotFound when there is none."""
        return self._get(interaction_id)

    def _get(self, interaction_id: str) -> ip.Interaction:
        entry = self._open.get(interaction_id)
        if entry is not None:
            return entry.interaction
        stored = self._store.get_interaction(interaction_id)
        if stored is None:
            raise NotFound(f"{interaction_name(interaction_id)} does not exist")
        return stored
