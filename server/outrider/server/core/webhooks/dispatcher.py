"""The delivery worker every replica runs: it claims due deliveries from the outbox (a lease per
claim, so a replica that dies leaves them to the others once it runs out), renders and sends each
through the egress, and records what came of it (`schedule.judge`). It is woken when this
process writes a message, and polls otherwise (for retries that fall due, and for what other
replicas wrote or left). At least once: a delivery whose result was not recorded is sent again,
with the same webhook-id."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass

from outrider.server.core import clock
from outrider.server.core.background import BackgroundTask
from outrider.server.core.errors import OutriderError
from outrider.server.core.storage import Store
from outrider.server.core.storage.webhook_rows import (
    DELIVERED,
    PENDING,
    AttemptRecord,
    Claimed,
    EndpointRow,
)
from outrider.server.core.webhooks.egress import Egress
from outrider.server.core.webhooks.names import endpoint_name
from outrider.server.core.webhooks.notices import endpoint_disabled
from outrider.server.core.webhooks.rendering import Renderer
from outrider.server.core.webhooks.schedule import GONE, Policy, Reply, judge
from outrider.server.core.webhooks.sealing import SealBroken
from outrider.server.telemetry import metrics

log = logging.getLogger(__name__)
_US = 1_000_000
_FORGET_EVERY = 3600.0  # seconds between two passes over finished deliveries
_LAST_ATTEMPTS = 3.0  # seconds attempts in flight may take to finish when the server stops


@dataclass(frozen=True)
class DispatchSettings:
    policy: Policy
    concurrency: int  # attempts in flight at once, per replica
    poll_interval: float  # seconds between two looks for due deliveries while idle
    lease: float  # seconds a claim holds a delivery (longer than an attempt can take)
    keep_for: float  # seconds finished deliveries are kept for people to look at


class Dispatcher(BackgroundTask):
    def __init__(
        self,
        store: Store,
        egress: Egress,
        renderers: Mapping[str, Renderer],
        settings: DispatchSettings,
    ) -> None:
        super().__init__("outrider-webhooks", self._work)
        self._store = store
        self._egress = egress
        self._renderers = renderers
        self._settings = settings
        self._wakeup = asyncio.Event()
        self._flying: set[asyncio.Task[None]] = set()
        self._forgotten_at = 0.0
        self._counted_at = 0.0

    def wake(self) -> None:
        """A message was committed (or a slot freed): look for due deliveries now."""
        self._wakeup.set()

    async def stop(self) -> None:
        """Stops claiming; attempts in flight get a few seconds to finish (their results are
        recorded), the rest are cancelled and go again, from any replica, after their lease."""
        await super().stop()
        if self._flying:
            await asyncio.wait(self._flying, timeout=_LAST_ATTEMPTS)
        for task in list(self._flying):
            task.cancel()
        await asyncio.gather(*self._flying, return_exceptions=True)

    async def _work(self) -> None:
        while True:
            self._wakeup.clear()
            room = self._settings.concurrency - len(self._flying)
            claimed = await self._claim(room) if room > 0 else []
            for delivery in claimed:
                task = asyncio.create_task(self._attempt(delivery), name="outrider-webhook")
                self._flying.add(task)
                task.add_done_callback(self._landed)
            if room > 0 and len(claimed) == room:
                continue  # there may be more due: claim again once a slot frees
            self._housekeeping()
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancel that arrives
            # as the event is set (a run's last notice at shutdown), and stop() then waits forever
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._settings.poll_interval):
                    await self._wakeup.wait()

    def _landed(self, task: asyncio.Task[None]) -> None:
        self._flying.discard(task)
        self.wake()

    async def _claim(self, room: int) -> list[Claimed]:
        lease_us = int(self._settings.lease * _US)
        try:
            return await self._store.claim_deliveries(
                uuid.uuid4().hex, clock.now_us(), lease_us, room
            )
        except OutriderError as error:  # the store is unreachable: the next poll tries again
            log.warning("webhook deliveries not claimed: %s", error.message)
            return []

    async def _attempt(self, claimed: Claimed) -> None:
        kind = claimed.endpoint.kind
        renderer = self._renderers.get(kind)
        started = time.monotonic()
        if renderer is None:
            reply = Reply(None, f"this process cannot send to {kind} endpoints")
        else:
            try:
                reply = await self._egress.post(renderer(claimed, time.time()))
            except SealBroken as broken:  # the operator's to mend: the delivery says how
                reply = Reply(None, str(broken))
            except Exception:
                log.exception("webhook delivery %s failed", claimed.delivery.message.id)
                reply = Reply(None, "the delivery failed inside the server; see its log")
        try:
            self._record(claimed, reply, time.monotonic() - started)
        except OutriderError as error:  # not recorded: it goes again after its lease
            log.warning("webhook attempt not recorded: %s", error.message)

    def _record(self, claimed: Claimed, reply: Reply, seconds: float) -> None:
        now_us = clock.now_us()
        delivery, endpoint = claimed.delivery, claimed.endpoint
        attempt = delivery.attempts + 1
        verdict = judge(self._settings.policy, reply, attempt, now_us, endpoint.failing_since_us)
        record = AttemptRecord(
            delivery.message.id,
            endpoint.id,
            claimed.claim,
            verdict.state,
            verdict.due_us,
            now_us,
            reply.status,
            reply.error,
            int(seconds * _US),
        )
        self._store.finish_delivery(record, answered=reply.delivered)
        outcome = {DELIVERED: "delivered", PENDING: "retry"}.get(verdict.state, "failed")
        if verdict.disable:
            outcome = "disabled"
            self._disable(endpoint, verdict.disable, now_us)
            metrics.webhook_endpoint_disabled("gone" if reply.status == GONE else "failing")
        metrics.webhook_attempt(endpoint.kind, outcome, seconds)

    def _disable(self, endpoint: EndpointRow, reason: str, now_us: int) -> None:
        log.warning("webhook endpoint %s disabled: %s", endpoint.id, reason)
        episode = f"{endpoint.id}_off{endpoint.generation}"
        notice = endpoint_disabled(endpoint_name(endpoint.id), endpoint.tenant, reason, episode)
        self._store.disable_endpoint(endpoint.id, reason, now_us, notice.message(now_us))
        self.wake()

    def _housekeeping(self) -> None:
        """While idle: the backlog gauge, and now and then the old finished deliveries."""
        now = time.monotonic()
        try:
            if now - self._counted_at >= max(self._settings.poll_interval, 5.0):
                self._counted_at = now
                metrics.webhook_backlog(self._store.outbox_backlog())
            if now - self._forgotten_at >= _FORGET_EVERY:
                self._forgotten_at = now
                self._store.forget_deliveries(clock.now_us() - int(self._settings.keep_for * _US))
        except OutriderError as error:
            log.warning("webhook housekeeping skipped: %s", error.message)
