"""The webhook routes' part of the OpenAPI document (`openapi` merges it in and lends it its
helpers, so the two parts describe requests and errors alike)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from outrider.server.core.webhooks.notices import EVENT_TYPES

Operation = Callable[..., dict[str, Any]]
Param = Callable[[str], dict[str, Any]]
Json = Callable[[dict[str, Any], str], dict[str, Any]]


def webhook_paths(operation: Operation, path: Param, page: list[Any], json: Json) -> dict[str, Any]:
    obj: dict[str, Any] = {"type": "object"}
    endpoint = [path("endpointId")]
    message = {
        "name": "messageId",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "pattern": "^msg_[0-9a-zA-Z_]{8,80}$"},
    }
    one = {"200": json(obj, "the endpoint")}
    with_secret = json(obj, "the endpoint, and its signing secret (shown once)")
    return {
        "/v1/webhooks/endpoints": {
            "post": operation(
                "Create a webhook endpoint (with a new signing secret)",
                {"201": with_secret},
                "WebhookEndpoint",
            ),
            "get": operation(
                "List the tenant's webhook endpoints, oldest first",
                {"200": json(obj, "a page of endpoints")},
                None,
                page,
            ),
        },
        "/v1/webhooks/endpoints/{endpointId}": {
            "get": operation("Get a webhook endpoint", one, None, endpoint),
            "patch": operation(
                "Change the fields the body names (url, eventTypes, description, "
                "carryAnswerLinks, enabled: true re-enables a disabled endpoint)",
                one,
                "WebhookEndpoint",
                endpoint,
            ),
            "delete": operation(
                "Delete a webhook endpoint and its deliveries", one, None, endpoint
            ),
        },
        "/v1/webhooks/endpoints/{endpointId}/rotate": {
            "post": operation(
                "Make a new signing secret; the previous one signs beside it for the overlap",
                {"200": with_secret},
                "Rotation",
                endpoint,
            )
        },
        "/v1/webhooks/endpoints/{endpointId}/deliveries": {
            "get": operation(
                "List an endpoint's deliveries, newest first (state, attempts, last response "
                "code, latency)",
                {"200": json(obj, "a page of deliveries")},
                None,
                [*endpoint, *page],
            )
        },
        "/v1/webhooks/endpoints/{endpointId}/deliveries/{messageId}/resend": {
            "post": operation(
                "Send a delivery again (same webhook-id)",
                {"200": json(obj, "the delivery, pending again")},
                None,
                [*endpoint, message],
            )
        },
    }


def webhook_schemas() -> dict[str, Any]:
    return {
        "WebhookEndpoint": {
            "type": "object",
            "properties": {
                "url": {"type": "string", "maxLength": 2048},
                "eventTypes": {"type": "array", "items": {"type": "string", "enum": EVENT_TYPES}},
                "description": {"type": "string", "maxLength": 200},
                "carryAnswerLinks": {"type": "boolean"},
                "enabled": {"type": "boolean"},
            },
        },
        "Rotation": {
            "type": "object",
            "properties": {"overlapSeconds": {"type": "number", "minimum": 0, "maximum": 604800}},
        },
    }
