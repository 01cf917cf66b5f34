"""The tenant's webhook endpoints, as callers manage them: create (with a new secret, shown once),
read, list, change, delete, rotate the secret (the old one keeps signing beside the new one for
an overlap), and look at and resend deliveries. Every call needs the webhooks.manage scope and
reaches only its tenant's endpoints (another tenant's is NOT_FOUND, like a missing one)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from outrider.server.core import clock, paging
from outrider.server.core.errors import FailedPrecondition, InvalidArgument, NotFound
from outrider.server.core.names import new_id
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.storage import Store
from outrider.server.core.storage.webhook_rows import WEBHOOK, Credentials, EndpointRow
from outrider.server.core.webhooks.checks import check_description, check_types, check_url
from outrider.server.core.webhooks.egress import Egress
from outrider.server.core.webhooks.names import (
    endpoint_name,
    parse_delivery_name,
    parse_endpoint_name,
)
from outrider.server.core.webhooks.sealing import CredentialSeal
from outrider.server.core.webhooks.signing import new_secret
from outrider.server.core.webhooks.views import delivery_view, endpoint_view
from outrider.v1 import webhook_pb2 as wp

DEFAULT_OVERLAP = 24 * 3600.0
MAX_OVERLAP = 7 * 24 * 3600.0
UPDATABLE = ("url", "event_types", "description", "carry_answer_links", "enabled")
_US = 1_000_000


class WebhookEndpoints:
    def __init__(
        self,
        store: Store,
        egress: Egress,
        tokens: paging.PageTokens,
        https_only: bool,
        seal: CredentialSeal,
    ) -> None:
        self._store = store
        self.egress = egress
        self._tokens = tokens
        self._https_only = https_only
        self._seal = seal

    async def create(
        self, endpoint: wp.WebhookEndpoint, principal: Principal
    ) -> tuple[wp.WebhookEndpoint, str]:
        principal.require(Scope.WEBHOOKS_MANAGE)
        await check_url(endpoint.url, self.egress, self._https_only, "endpoint.url")
        now, secret, endpoint_id = clock.now_us(), new_secret(), new_id()
        row = EndpointRow(
            endpoint_id,
            principal.tenant,
            endpoint.url,
            check_types(endpoint.event_types, "endpoint.event_types"),
            check_description(endpoint.description, "endpoint.description"),
            endpoint.carry_answer_links,
            create_us=now,
            update_us=now,
            credentials=self._seal.seal(endpoint_id, Credentials(((secret, 0),))),
        )
        await self._save(row)
        return endpoint_view(row), secret

    def get(self, name: str, principal: Principal) -> wp.WebhookEndpoint:
        return endpoint_view(self._find(parse_endpoint_name(name), principal))

    def list_endpoints(
        self, page_size: int, page_token: str, principal: Principal
    ) -> tuple[list[wp.WebhookEndpoint], str]:
        principal.require(Scope.WEBHOOKS_MANAGE)
        size = paging.page_size(page_size)
        after = self._tokens.decode("webhookEndpoints", page_token)
        rows = self._store.list_endpoints(principal.tenant_filter, WEBHOOK, None, after, size + 1)
        token = ""
        if len(rows) > size:
            rows, last = rows[:size], rows[size - 1]
            token = self._tokens.encode("webhookEndpoints", last.create_us, last.id)
        return [endpoint_view(row) for row in rows], token

    async def update(
        self, endpoint: wp.WebhookEndpoint, paths: Sequence[str], principal: Principal
    ) -> wp.WebhookEndpoint:
        row = self._find(parse_endpoint_name(endpoint.name, "endpoint.name"), principal)
        unknown = [path for path in paths if path not in UPDATABLE]
        if unknown or not paths:
            why = f"unknown fields {unknown}" if unknown else "names no field"
            raise InvalidArgument.single(
                "update_mask", f"{why}; it may name {', '.join(UPDATABLE)}"
            )
        changes: dict[str, object] = {"update_us": clock.now_us()}
        if "url" in paths:
            await check_url(endpoint.url, self.egress, self._https_only, "endpoint.url")
            changes["url"] = endpoint.url
        if "event_types" in paths:
            changes["event_types"] = check_types(endpoint.event_types, "endpoint.event_types")
        if "description" in paths:
            changes["description"] = check_description(endpoint.description, "endpoint.description")
        if "carry_answer_links" in paths:
            changes["carry_links"] = endpoint.carry_answer_links
        if "enabled" in paths and endpoint.enabled != row.enabled:
            changes.update(_switched(row, endpoint.enabled))
        row = dataclasses.replace(row, **changes)  # type: ignore[arg-type]
        await self._save(row)
        return endpoint_view(row)

    async def delete(self, name: str, principal: Principal) -> None:
        row = self._find(parse_endpoint_name(name), principal)
        self._store.delete_endpoint(row.id)
        await self._store.committed()

    async def rotate(
        self, name: str, overlap: float, principal: Principal
    ) -> tuple[wp.WebhookEndpoint, str]:
        row = self._find(parse_endpoint_name(name), principal)
        if overlap < 0 or overlap > MAX_OVERLAP:
            raise InvalidArgument.single("overlap", f"must be between 0 and {MAX_OVERLAP:g} s")
        now, secret = clock.now_us(), new_secret()
        until = now + int((overlap or DEFAULT_OVERLAP) * _US)
        kept = [
            (old, until if end == 0 else min(end, until)) for old, end in row.credentials.secrets
        ]
        # secrets sealed under a former key sign nothing any more: a rotation lets go of them
        live = tuple((s, end) for s, end in kept if end > now and self._seal.opens(row.id, s))
        credentials = dataclasses.replace(row.credentials, secrets=((secret, 0), *live))
        credentials = self._seal.seal(row.id, credentials)  # the new one; the old stay sealed
        row = dataclasses.replace(row, credentials=credentials, update_us=now)
        await self._save(row)
        return endpoint_view(row), secret

    def deliveries(
        self, parent: str, page_size: int, page_token: str, principal: Principal
    ) -> tuple[list[wp.WebhookDelivery], str]:
        row = self._find(parse_endpoint_name(parent, "parent"), principal)
        size = paging.page_size(page_size)
        listing = f"webhookDeliveries {row.id}"
        before = self._tokens.decode(listing, page_token)
        found = self._store.list_deliveries(row.id, before, size + 1)
        token = ""
        if len(found) > size:
            found, last = found[:size], found[size - 1].message
            token = self._tokens.encode(listing, last.create_us, last.id)
        return [delivery_view(delivery) for delivery in found], token

    async def resend(self, name: str, principal: Principal) -> wp.WebhookDelivery:
        endpoint_id, message_id = parse_delivery_name(name)
        row = self._find(endpoint_id, principal)
        if not row.enabled:
            raise FailedPrecondition(
                f"{endpoint_name(row.id)} is disabled: enable it before sending again",
                reason="ENDPOINT_DISABLED",
            )
        if self._store.get_delivery(row.id, message_id) is None:
            raise NotFound(f"{name} does not exist")
        self._store.resend_delivery(row.id, message_id, clock.now_us())
        await self._store.committed()
        delivery = self._store.get_delivery(row.id, message_id)
        assert delivery is not None
        return delivery_view(delivery)

    def _find(self, endpoint_id: str, principal: Principal) -> EndpointRow:
        principal.require(Scope.WEBHOOKS_MANAGE)
        row = self._store.get_endpoint(endpoint_id, principal.tenant_filter)
        if row is None or row.kind != WEBHOOK:
            raise NotFound(f"{endpoint_name(endpoint_id)} does not exist")
        return row

    async def _save(self, row: EndpointRow) -> None:
        self._store.save_endpoint(row)
        await self._store.committed()  # every replica's next delivery sees it


def _switched(row: EndpointRow, enabled: bool) -> dict[str, object]:
    """Enabling by hand starts a new episode (no failures yet); disabling says who did it."""
    if enabled:
        return {
            "enabled": True,
            "disabled_reason": "",
            "failing_since_us": None,
            "generation": row.generation + 1,
        }
    return {"enabled": False, "disabled_reason": "disabled by hand"}
