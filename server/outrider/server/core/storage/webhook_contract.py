"""The part of the store contract that keeps the webhook outbox (`core/webhooks/`): endpoints,
messages written in the transaction of the state change they report, and their deliveries,
claimed by workers with leases. Rows and SQL: `webhook_rows`."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from outrider.server.core.storage.webhook_rows import (
    AttemptRecord,
    Claimed,
    DeliveryRow,
    EndpointRow,
    OutboxMessage,
)


class WebhookStore(Protocol):
    def together(self) -> AbstractContextManager[None]:
        """Writes made inside commit in one transaction (all or none): a state change and the
        outbox message that reports it. Nothing inside may await."""

    def save_endpoint(self, row: EndpointRow) -> None:
        """Inserts or replaces an endpoint (visible to this process's next read)."""

    def get_endpoint(self, endpoint_id: str, tenant: str | None = None) -> EndpointRow | None: ...

    def list_endpoints(
        self,
        tenant: str | None,
        kind: str,
        run_id: str | None,
        after: tuple[int, str] | None,
        limit: int,
    ) -> list[EndpointRow]:
        """Endpoints of `kind` oldest first, after the (create_us, id) cursor; with `run_id`,
        only those that follow that run."""

    def delete_endpoint(self, endpoint_id: str) -> None:
        """Deletes the endpoint and its deliveries."""

    def wants_message(self, tenant: str, type_: str, run_id: str | None) -> bool:
        """False only when `add_message` of such a message would write nothing (no enabled
        endpoint of the tenant wants `type_` about `run_id`); answered without a query where the
        backend can know (SQLite: one process owns every endpoint), True where it cannot."""

    def add_message(self, message: OutboxMessage, fenced: bool = False) -> None:
        """Writes the message with a delivery for every enabled endpoint of its tenant that wants
        its type (and follows its run, for endpoints that follow one); nothing when none does.
        `fenced` (a message about `message.run_id`): written only while this process owns the
        run or its owner is gone, like the run's own rows."""

    async def claim_deliveries(
        self, claim: str, now_us: int, lease_us: int, limit: int
    ) -> list[Claimed]:
        """Claims up to `limit` due deliveries to enabled endpoints, oldest due first, for
        `lease_us`: no other worker gets them meanwhile, and they are due again once it
        passes without `finish_delivery`."""

    def finish_delivery(self, record: AttemptRecord, answered: bool) -> None:
        """Records an attempt of a claimed delivery (nothing if its claim was lost meanwhile);
        `answered`: the endpoint succeeded, so it is no longer failing, else it is failing
        since now unless it was already."""

    def disable_endpoint(
        self, endpoint_id: str, reason: str, now_us: int, notice: OutboxMessage | None
    ) -> None:
        """Disables an enabled endpoint, gives up its pending deliveries, and writes `notice`
        (endpoint.disabled), all in one transaction."""

    def list_deliveries(
        self, endpoint_id: str, before: tuple[int, str] | None, limit: int
    ) -> list[DeliveryRow]:
        """An endpoint's deliveries newest first, before the (create_us, message id) cursor."""

    def get_delivery(self, endpoint_id: str, message_id: str) -> DeliveryRow | None: ...

    def resend_delivery(self, endpoint_id: str, message_id: str, now_us: int) -> None:
        """Makes the delivery pending again, due now (its attempts are kept)."""

    def outbox_backlog(self) -> int:
        """Deliveries still pending, every endpoint's."""

    def forget_deliveries(self, before_us: int) -> int:
        """Deletes the finished deliveries made before `before_us`, and messages left with
        none; returns how many deliveries."""
