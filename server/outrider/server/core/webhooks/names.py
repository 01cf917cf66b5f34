"""Resource names of the outbox: webhookEndpoints/{id} and their deliveries,
webhookEndpoints/{id}/deliveries/{message id}."""

from __future__ import annotations

import re

from outrider.server.core.errors import InvalidArgument

ENDPOINT_PREFIX = "webhookEndpoints/"
_ID = r"[0-9a-z]{8,64}"
_ENDPOINT = re.compile(rf"{ENDPOINT_PREFIX}({_ID})")
_DELIVERY = re.compile(rf"{ENDPOINT_PREFIX}({_ID})/deliveries/(msg_[0-9a-zA-Z_]{{8,80}})")


def endpoint_name(endpoint_id: str) -> str:
    return f"{ENDPOINT_PREFIX}{endpoint_id}"


def delivery_name(endpoint_id: str, message_id: str) -> str:
    return f"{ENDPOINT_PREFIX}{endpoint_id}/deliveries/{message_id}"


def parse_endpoint_name(name: str, field: str = "name") -> str:
    match = _ENDPOINT.fullmatch(name)
    if match is None:
        raise _bad(name, field, "webhookEndpoints/{endpoint_id}")
    return match.group(1)


def parse_delivery_name(name: str, field: str = "name") -> tuple[str, str]:
    match = _DELIVERY.fullmatch(name)
    if match is None:
        raise _bad(name, field, "webhookEndpoints/{endpoint_id}/deliveries/{message_id}")
    return match.group(1), match.group(2)


def _bad(name: str, field: str, shape: str) -> InvalidArgument:
    if not name:
        return InvalidArgument.single(field, "is required")
    return InvalidArgument.single(field, f"must look like {shape}")
