"""Stored endpoints and deliveries as the contract's messages (never with their secrets)."""

from __future__ import annotations

from outrider.server.core import clock
from outrider.server.core.names import run_name
from outrider.server.core.storage.webhook_rows import PENDING, DeliveryRow, EndpointRow
from outrider.server.core.webhooks.names import delivery_name, endpoint_name
from outrider.v1 import webhook_pb2 as wp


def endpoint_view(row: EndpointRow) -> wp.WebhookEndpoint:
    view = wp.WebhookEndpoint(
        name=endpoint_name(row.id),
        url=row.url,
        event_types=row.event_types,
        description=row.description,
        enabled=row.enabled,
        carry_answer_links=row.carry_links,
        disabled_reason=row.disabled_reason,
        create_time=clock.timestamp(row.create_us),
        update_time=clock.timestamp(row.update_us),
    )
    if row.failing_since_us is not None:
        view.failing_since.CopyFrom(clock.timestamp(row.failing_since_us))
    rotated_out = [until for _, until in row.credentials.secrets[1:] if until > clock.now_us()]
    if rotated_out:
        view.previous_secret_expire_time.CopyFrom(clock.timestamp(max(rotated_out)))
    return view


def delivery_view(row: DeliveryRow) -> wp.WebhookDelivery:
    message = row.message
    view = wp.WebhookDelivery(
        name=delivery_name(row.endpoint_id, message.id),
        message_id=message.id,
        event_type=message.type,
        run=run_name(message.run_id) if message.run_id else "",
        state=row.state,  # type: ignore[arg-type]
        attempts=row.attempts,
        response_code=row.last_code or 0,
        error=row.last_error,
        create_time=clock.timestamp(message.create_us),
    )
    if row.last_latency_us is not None:
        view.latency.FromMicroseconds(row.last_latency_us)
    if row.last_us is not None:
        view.last_attempt_time.CopyFrom(clock.timestamp(row.last_us))
    if row.state == PENDING:
        view.next_attempt_time.CopyFrom(clock.timestamp(row.due_us))
    return view
