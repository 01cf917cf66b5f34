"""The webhook outbox in the SQLite store. One process owns the file, so one worker claims
deliveries; its writes join the loop iteration's transaction like every other write, so a
message written right after the state change it reports commits with it. For the same reason the
store knows without a query which messages its endpoints want (`interest`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from outrider.server.core.storage.sqlite.connection import SqliteConnection
from outrider.server.core.storage.sqlite.interest import EndpointInterest, Rows
from outrider.server.core.storage.start_keys import for_sqlite
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


class SqliteWebhooks(SqliteConnection):
    def __init__(self, path: Path, artifacts_dir: Path | None = None) -> None:
        super().__init__(path, artifacts_dir)
        self._interest = EndpointInterest(self._enabled_endpoints)

    @contextlib.contextmanager
    def together(self) -> Iterator[None]:
        """Every write of one loop iteration shares its transaction already (see `connection`),
        and nothing inside awaits or reads events (which would commit first)."""
        yield

    def save_endpoint(self, row: EndpointRow) -> None:
        self._write(for_sqlite(SAVE_ENDPOINT), endpoint_values(row))
        self._interest.forget()

    def get_endpoint(self, endpoint_id: str, tenant: str | None = None) -> EndpointRow | None:
        row = self._conn.execute(
            f"SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ? "
            "AND (? IS NULL OR tenant = ?)",
            (endpoint_id, tenant, tenant),
        ).fetchone()
        return endpoint_from(row) if row else None

    def list_endpoints(
        self,
        tenant: str | None,
        kind: str,
        run_id: str | None,
        after: tuple[int, str] | None,
        limit: int,
    ) -> list[EndpointRow]:
        clauses, params = ["kind = ?"], [kind]
        if tenant is not None:
            clauses.append("tenant = ?")
            params.append(tenant)
        if run_id is not None:
            clauses.append("run_id = ?")
            params.append(run_id)
        if after is not None:
            clauses.append("(create_us, id) > (?, ?)")
            params.extend(after)  # type: ignore[arg-type]
        rows = self._conn.execute(
            f"SELECT {ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE {' AND '.join(clauses)} "
            "ORDER BY create_us, id LIMIT ?",
            [*params, limit],
        ).fetchall()
        return [endpoint_from(row) for row in rows]

    def delete_endpoint(self, endpoint_id: str) -> None:
        self._write("DELETE FROM webhook_deliveries WHERE endpoint_id = ?", (endpoint_id,))
        self._write("DELETE FROM webhook_endpoints WHERE id = ?", (endpoint_id,))
        self._interest.forget()

    def wants_message(self, tenant: str, type_: str, run_id: str | None) -> bool:
        return self._interest.wants(tenant, type_, run_id)

    def _enabled_endpoints(self, tenant: str) -> Rows:
        return self._conn.execute(
            "SELECT event_types, run_id FROM webhook_endpoints WHERE tenant = ? AND enabled",
            (tenant,),
        ).fetchall()

    def add_message(self, message: OutboxMessage, fenced: bool = False) -> None:
        """Unfenced: one process owns the file, and with it every run."""
        insert, fan_out = message_values(message)
        self._write(for_sqlite(ADD_MESSAGE.format(fence="")), insert)
        self._write(for_sqlite(FAN_OUT), fan_out)

    async def claim_deliveries(
        self, claim: str, now_us: int, lease_us: int, limit: int
    ) -> list[Claimed]:
        self._write(for_sqlite(CLAIM.format(lock="")), (claim, now_us + lease_us, now_us, limit))
        rows = self._conn.execute(for_sqlite(CLAIMED_SELECT), (claim,)).fetchall()
        return [claimed_from(row, claim) for row in rows]

    def finish_delivery(self, record: AttemptRecord, answered: bool) -> None:
        self._write(for_sqlite(FINISH), finish_values(record))
        if answered:
            self._write(for_sqlite(ANSWERED), (record.endpoint_id,))
        else:
            self._write(for_sqlite(UNANSWERED), (record.at_us, record.endpoint_id))

    def disable_endpoint(
        self, endpoint_id: str, reason: str, now_us: int, notice: OutboxMessage | None
    ) -> None:
        self._write(for_sqlite(DISABLE), (reason, now_us, endpoint_id))
        self._interest.forget()
        self._write(for_sqlite(GIVE_UP_PENDING), (f"endpoint disabled: {reason}", endpoint_id))
        if notice is not None:
            self.add_message(notice)

    def list_deliveries(
        self, endpoint_id: str, before: tuple[int, str] | None, limit: int
    ) -> list[DeliveryRow]:
        where, params = "d.endpoint_id = ?", [endpoint_id]
        if before is not None:
            where += " AND (d.create_us, d.message_id) < (?, ?)"
            params.extend(before)  # type: ignore[arg-type]
        rows = self._conn.execute(
            f"{DELIVERY_SELECT} WHERE {where} ORDER BY d.create_us DESC, d.message_id DESC LIMIT ?",
            [*params, limit],
        ).fetchall()
        return [delivery_from(row) for row in rows]

    def get_delivery(self, endpoint_id: str, message_id: str) -> DeliveryRow | None:
        row = self._conn.execute(
            f"{DELIVERY_SELECT} WHERE d.endpoint_id = ? AND d.message_id = ?",
            (endpoint_id, message_id),
        ).fetchone()
        return delivery_from(row) if row else None

    def resend_delivery(self, endpoint_id: str, message_id: str, now_us: int) -> None:
        self._write(for_sqlite(RESEND), (now_us, message_id, endpoint_id))

    def outbox_backlog(self) -> int:
        return int(self._conn.execute(BACKLOG).fetchone()[0])

    def forget_deliveries(self, before_us: int) -> int:
        params: tuple[Any, ...] = (before_us,)
        self._begin_write()
        forgotten = self._conn.execute(for_sqlite(FORGET_FINISHED), params).rowcount
        self._conn.execute(for_sqlite(FORGET_UNSENT), params)
        return int(forgotten)
