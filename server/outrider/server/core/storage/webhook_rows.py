"""The outbox's rows and SQL, shared by both backends (`%s` placeholders; SQLite's with
`start_keys.for_sqlite`).

Three tables: `webhook_endpoints` (where deliveries go, with their secrets), `webhook_messages`
(one row per notification: its webhook-id, type and data) and `webhook_deliveries` (one row per
message and endpoint: its state, attempts and last result). A message and its deliveries are
inserted by the statements of `ADD_MESSAGE` and `FAN_OUT`, in the transaction of the state
change they report; a message no enabled endpoint wants is not written at all.

A delivery is claimed by setting `claim` to a token of the claiming worker and moving `due_us`
to when that claim runs out (its lease): a worker that dies leaves it due again then.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

PENDING, DELIVERED, FAILED = 1, 2, 3  # webhook_deliveries.state (WebhookDeliveryState's numbers)
WEBHOOK, A2A = "webhook", "a2a"  # webhook_endpoints.kind


@dataclass(frozen=True)
class Credentials:
    """What an endpoint's requests are signed or authorised with: its signing secrets (newest
    first, each with the instant it stops signing, 0 for never), and for A2A push the
    Authorization header value and notification token the client gave."""

    secrets: tuple[tuple[str, int], ...] = ()
    authorization: str = ""
    token: str = ""

    def to_json(self) -> str:
        return json.dumps(
            {"secrets": self.secrets, "authorization": self.authorization, "token": self.token}
        )

    @classmethod
    def from_json(cls, text: str) -> Credentials:
        value = json.loads(text or "{}")
        secrets = tuple((str(s), int(until)) for s, until in value.get("secrets", ()))
        return cls(secrets, str(value.get("authorization", "")), str(value.get("token", "")))


@dataclass(frozen=True)
class EndpointRow:
    id: str
    tenant: str
    url: str
    event_types: tuple[str, ...] = ()  # empty: every type
    description: str = ""
    carry_links: bool = False
    enabled: bool = True
    disabled_reason: str = ""
    failing_since_us: int | None = None
    create_us: int = 0
    update_us: int = 0
    credentials: Credentials = field(default_factory=Credentials)
    kind: str = WEBHOOK
    run_id: str | None = None  # A2A push: the one task (run) it follows
    config_id: str | None = None  # A2A push: the client's id of the config
    generation: int = 0  # times it was enabled again after being disabled


@dataclass(frozen=True)
class OutboxMessage:
    """One notification: `id` is its webhook-id; `data` the JSON of its payload's data."""

    id: str
    tenant: str
    type: str
    create_us: int
    data: str
    run_id: str | None = None


@dataclass(frozen=True)
class DeliveryRow:
    message: OutboxMessage
    endpoint_id: str
    state: int
    attempts: int
    due_us: int
    last_us: int | None = None
    last_code: int | None = None
    last_error: str = ""
    last_latency_us: int | None = None


@dataclass(frozen=True)
class Claimed:
    """A delivery a worker claimed, with what it needs to attempt it."""

    delivery: DeliveryRow
    endpoint: EndpointRow
    claim: str


@dataclass(frozen=True)
class AttemptRecord:
    """What one attempt came to, as the store keeps it: the delivery's new state and due time
    (the next attempt's), and the endpoint failing since when (None: it answered)."""

    message_id: str
    endpoint_id: str
    claim: str
    state: int
    due_us: int
    at_us: int
    code: int | None
    error: str
    latency_us: int


ENDPOINT_COLUMNS = (
    "id, tenant, url, event_types, description, carry_links, enabled, disabled_reason, "
    "failing_since_us, create_us, update_us, credentials, kind, run_id, config_id, generation"
)
_MESSAGE_COLUMNS = "m.id, m.tenant, m.type, m.create_us, m.data, m.run_id"
_DELIVERY_COLUMNS = (
    "d.endpoint_id, d.state, d.attempts, d.due_us, d.last_us, d.last_code, d.last_error, "
    "d.last_latency_us"
)
DELIVERY_SELECT = (
    f"SELECT {_MESSAGE_COLUMNS}, {_DELIVERY_COLUMNS} FROM webhook_deliveries d "
    "JOIN webhook_messages m ON m.id = d.message_id"
)
CLAIMED_SELECT = (
    f"SELECT {_MESSAGE_COLUMNS}, {_DELIVERY_COLUMNS}, "
    + ", ".join(f"e.{column.strip()}" for column in ENDPOINT_COLUMNS.split(","))
    + " FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id "
    "JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.claim = %s"
)

SAVE_ENDPOINT = (
    f"INSERT INTO webhook_endpoints ({ENDPOINT_COLUMNS}) VALUES ({', '.join(['%s'] * 16)}) "
    "ON CONFLICT (id) DO UPDATE SET url = excluded.url, event_types = excluded.event_types, "
    "description = excluded.description, carry_links = excluded.carry_links, "
    "enabled = excluded.enabled, disabled_reason = excluded.disabled_reason, "
    "failing_since_us = excluded.failing_since_us, update_us = excluded.update_us, "
    "credentials = excluded.credentials, generation = excluded.generation"
)
# Endpoints that want a message: (tenant, run_id, "% type %"). Types are stored padded with
# spaces (" run.ended question.waiting "), so one LIKE finds a whole name.
_WANTED = (
    "e.tenant = %s AND e.enabled AND (e.run_id IS NULL OR e.run_id = %s) "
    "AND (e.event_types = '' OR e.event_types LIKE %s)"
)
ADD_MESSAGE = (
    "INSERT INTO webhook_messages (id, tenant, type, run_id, create_us, data) "
    "SELECT %s, %s, %s, %s, %s, %s WHERE EXISTS "
    f"(SELECT 1 FROM webhook_endpoints e WHERE {_WANTED}) {{fence}} ON CONFLICT DO NOTHING"
)
FAN_OUT = (
    "INSERT INTO webhook_deliveries (message_id, endpoint_id, tenant, state, attempts, due_us, "
    f"create_us) SELECT m.id, e.id, e.tenant, {PENDING}, 0, m.create_us, m.create_us "
    f"FROM webhook_messages m JOIN webhook_endpoints e ON {_WANTED} WHERE m.id = %s "
    "ON CONFLICT DO NOTHING"
)
CLAIM = (
    "UPDATE webhook_deliveries SET claim = %s, due_us = %s WHERE (message_id, endpoint_id) IN "
    "(SELECT d.message_id, d.endpoint_id FROM webhook_deliveries d "
    "JOIN webhook_endpoints e ON e.id = d.endpoint_id "
    f"WHERE d.state = {PENDING} AND d.due_us <= %s AND e.enabled ORDER BY d.due_us LIMIT %s"
    "{lock})"
)
FINISH = (
    "UPDATE webhook_deliveries SET state = %s, due_us = %s, claim = NULL, "
    "attempts = attempts + 1, last_us = %s, last_code = %s, last_error = %s, "
    "last_latency_us = %s WHERE message_id = %s AND endpoint_id = %s AND claim = %s"
)
ANSWERED = "UPDATE webhook_endpoints SET failing_since_us = NULL WHERE id = %s"
UNANSWERED = (
    "UPDATE webhook_endpoints SET failing_since_us = COALESCE(failing_since_us, %s) WHERE id = %s"
)
DISABLE = (
    "UPDATE webhook_endpoints SET enabled = FALSE, disabled_reason = %s, update_us = %s "
    "WHERE id = %s AND enabled"
)
GIVE_UP_PENDING = (
    f"UPDATE webhook_deliveries SET state = {FAILED}, claim = NULL, "
    f"last_error = %s WHERE endpoint_id = %s AND state = {PENDING}"
)
RESEND = (
    f"UPDATE webhook_deliveries SET state = {PENDING}, due_us = %s, claim = NULL "
    "WHERE message_id = %s AND endpoint_id = %s"
)
BACKLOG = f"SELECT count(*) FROM webhook_deliveries WHERE state = {PENDING}"
FORGET_FINISHED = f"DELETE FROM webhook_deliveries WHERE state <> {PENDING} AND create_us < %s"
FORGET_UNSENT = (
    "DELETE FROM webhook_messages WHERE create_us < %s AND NOT EXISTS "
    "(SELECT 1 FROM webhook_deliveries d WHERE d.message_id = webhook_messages.id)"
)


def padded(types: Sequence[str]) -> str:
    return f" {' '.join(types)} " if types else ""


def endpoint_values(row: EndpointRow) -> tuple[Any, ...]:
    """The values of ENDPOINT_COLUMNS."""
    return (
        row.id,
        row.tenant,
        row.url,
        padded(row.event_types),
        row.description,
        row.carry_links,
        row.enabled,
        row.disabled_reason,
        row.failing_since_us,
        row.create_us,
        row.update_us,
        row.credentials.to_json(),
        row.kind,
        row.run_id,
        row.config_id,
        row.generation,
    )


def endpoint_from(row: Sequence[Any]) -> EndpointRow:
    """An EndpointRow from the values of ENDPOINT_COLUMNS as read."""
    return EndpointRow(
        str(row[0]),
        str(row[1]),
        str(row[2]),
        tuple(str(row[3]).split()),
        str(row[4]),
        bool(row[5]),
        bool(row[6]),
        str(row[7] or ""),
        None if row[8] is None else int(row[8]),
        int(row[9]),
        int(row[10]),
        Credentials.from_json(str(row[11])),
        str(row[12]),
        None if row[13] is None else str(row[13]),
        None if row[14] is None else str(row[14]),
        int(row[15]),
    )


def message_values(message: OutboxMessage) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The values of ADD_MESSAGE (before its fence's) and of FAN_OUT."""
    wanted = (message.tenant, message.run_id, f"% {message.type} %")
    inserted = (
        message.id,
        message.tenant,
        message.type,
        message.run_id,
        message.create_us,
        message.data,
    )
    return (*inserted, *wanted), (*wanted, message.id)


def delivery_from(row: Sequence[Any]) -> DeliveryRow:
    """A DeliveryRow from a row of DELIVERY_SELECT (its first 14 values)."""
    message = OutboxMessage(
        str(row[0]),
        str(row[1]),
        str(row[2]),
        int(row[3]),
        str(row[4]),
        None if row[5] is None else str(row[5]),
    )
    return DeliveryRow(
        message,
        str(row[6]),
        int(row[7]),
        int(row[8]),
        int(row[9]),
        None if row[10] is None else int(row[10]),
        None if row[11] is None else int(row[11]),
        str(row[12] or ""),
        None if row[13] is None else int(row[13]),
    )


def claimed_from(row: Sequence[Any], claim: str) -> Claimed:
    return Claimed(delivery_from(row[:14]), endpoint_from(row[14:]), claim)


def finish_values(record: AttemptRecord) -> tuple[Any, ...]:
    return (
        record.state,
        record.due_us,
        record.at_us,
        record.code,
        record.error,
        record.latency_us,
        record.message_id,
        record.endpoint_id,
        record.claim,
    )
