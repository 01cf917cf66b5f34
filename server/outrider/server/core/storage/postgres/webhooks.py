"""The webhook outbox in PostgreSQL, shared by replicas. Messages and attempt results are written
behind like every other row, so a message put in a `together` block with the state change it
reports commits in the same transaction; claims go straight to the database (their answer is
the work), with `FOR UPDATE SKIP LOCKED`, so workers on every replica share the due deliveries
without waiting for each other."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

from outrider.server.core.storage.postgres.connection import PostgresConnection
from outrider.server.core.storage.postgres.presence import OWNED_OR_ORPHANED
from outrider.server.core.storage.postgres.writes import Write
from outrider.server.core.storage.webhook_rows import (
    ADD_MESSAGE,
    ANSWERED,
    BACKLOG,
    CLAIM,
    CLAIMED_SELECT,
    DELIVERY_SELECT,
    DISABLE,
    ENDPOINT_COLUMNS,
    FAN_OUT,
    FINISH,
    FORGET_FINISHED,
    FORGET_UNSENT,
    GIVE_UP_PENDING,
    RESEND,
    SAVE_ENDPOINT,
    UNANSWERED,
    AttemptRecord,
    Claimed,
    DeliveryRow,
    EndpointRow,
    OutboxMessage,
    claimed_from,
    delivery_from,
    endpoint_from,
    endpoint_values,
    finish_values,
    message_values,
)

_CLAIM = CLAIM.format(lock=" FOR UPDATE OF d SKIP LOCKED")
_FENCED_MESSAGE = ADD_MESSAGE.format(fence=f"AND {OWNED_OR_ORPHANED}")


class PostgresWebhooks(PostgresConnection):
    @contextlib.contextmanager
    def together(self) -> Iterator[None]:
        with self._writer.together():
            yield

    def save_endpoint(self, row: EndpointRow) -> None:
        self._writer.put(Write(SAVE_ENDPOINT, endpoint_values(row)))

    def get_endpoint(self, endpoint_id: str, tenant: str | None = None) -> EndpointRow | None:
        rows = self._rows(
            f"SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = %s "
            "AND (%s::text IS NULL OR tenant = %s)",
            (endpoint_id, tenant, tenant),
        )
        return endpoint_from(rows[0]) if rows else None

    def list_endpoints(
        self,
        tenant: str | None,
        kind: str,
        run_id: str | None,
        after: tuple[int, str] | None,
        limit: int,
    ) -> list[EndpointRow]:
        rows = self._rows(
            f"SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE kind = %s "
            "AND (%s::text IS NULL OR tenant = %s) AND (%s::text IS NULL OR run_id = %s) "
            "AND (%s::bigint IS NULL OR (create_us, id) > (%s, %s)) "
            "ORDER BY create_us, id LIMIT %s",
            (kind, tenant, tenant, run_id, run_id, *_cursor(after), limit),
        )
        return [endpoint_from(row) for row in rows]

    def delete_endpoint(self, endpoint_id: str) -> None:
        with self._writer.together():
            self._writer.put(
                Write("DELETE FROM webhook_deliveries WHERE endpoint_id = %s", (endpoint_id,))
            )
            self._writer.put(Write("DELETE FROM webhook_endpoints WHERE id = %s", (endpoint_id,)))

    def wants_message(self, tenant: str, type_: str, run_id: str | None) -> bool:
        """Always: any replica may have made an endpoint a moment ago, and only the database
        knows. The message's statements go behind with the change they report (the event loop
        only queues them), and write nothing when no endpoint wants it."""
        return True

    def add_message(self, message: OutboxMessage, fenced: bool = False) -> None:
        insert, fan_out = message_values(message)
        with self._writer.together():
            if fenced:
                fence = (message.run_id, self._presence.key)
                self._writer.put(Write(_FENCED_MESSAGE, (*insert, *fence), replay=None))
            else:
                self._writer.put(Write(ADD_MESSAGE.format(fence=""), insert))
            self._writer.put(Write(FAN_OUT, fan_out))

    async def claim_deliveries(
        self, claim: str, now_us: int, lease_us: int, limit: int
    ) -> list[Claimed]:
        def claim_and_read() -> list[Claimed]:
            self._rows(
                _CLAIM + " RETURNING 1", (claim, now_us + lease_us, now_us, limit), barrier=False
            )
            rows = self._rows(CLAIMED_SELECT, (claim,), barrier=False)
            return [claimed_from(row, claim) for row in rows]

        return await asyncio.to_thread(claim_and_read)

    def finish_delivery(self, record: AttemptRecord, answered: bool) -> None:
        with self._writer.together():
            self._writer.put(Write(FINISH, finish_values(record), replay=None))
            if answered:
                self._writer.put(Write(ANSWERED, (record.endpoint_id,)))
            else:
                self._writer.put(Write(UNANSWERED, (record.at_us, record.endpoint_id)))

    def disable_endpoint(
        self, endpoint_id: str, reason: str, now_us: int, notice: OutboxMessage | None
    ) -> None:
        with self._writer.together():
            self._writer.put(Write(DISABLE, (reason, now_us, endpoint_id)))
            gave_up = (f"endpoint disabled: {reason}", endpoint_id)
            self._writer.put(Write(GIVE_UP_PENDING, gave_up, replay=None))
            if notice is not None:
                self.add_message(notice)

    def list_deliveries(
        self, endpoint_id: str, before: tuple[int, str] | None, limit: int
    ) -> list[DeliveryRow]:
        rows = self._rows(
            f"{DELIVERY_SELECT} WHERE d.endpoint_id = %s "
            "AND (%s::bigint IS NULL OR (d.create_us, d.message_id) < (%s, %s)) "
            "ORDER BY d.create_us DESC, d.message_id DESC LIMIT %s",
            (endpoint_id, *_cursor(before), limit),
        )
        return [delivery_from(row) for row in rows]

    def get_delivery(self, endpoint_id: str, message_id: str) -> DeliveryRow | None:
        rows = self._rows(
            f"{DELIVERY_SELECT} WHERE d.endpoint_id = %s AND d.message_id = %s",
            (endpoint_id, message_id),
        )
        return delivery_from(rows[0]) if rows else None

    def resend_delivery(self, endpoint_id: str, message_id: str, now_us: int) -> None:
        self._writer.put(Write(RESEND, (now_us, message_id, endpoint_id), replay=None))

    def outbox_backlog(self) -> int:
        return int(self._rows(BACKLOG, (), barrier=False)[0][0])

    def forget_deliveries(self, before_us: int) -> int:
        forgotten = self._rows(FORGET_FINISHED + " RETURNING 1", (before_us,), barrier=False)
        self._rows(FORGET_UNSENT + " RETURNING 1", (before_us,), barrier=False)
        return len(forgotten)


def _cursor(cursor: tuple[int, str] | None) -> tuple[int | None, int | None, str | None]:
    return (None, None, None) if cursor is None else (cursor[0], cursor[0], cursor[1])
