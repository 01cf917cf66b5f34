"""The webhooks pages in Chromium: a tenant's endpoints, one endpoint's recent deliveries (state,
attempts, response code, latency) after a real browser run ended, and "Send again", which makes
the delivery anew with the same webhook-id; another tenant's endpoint does not exist."""

from __future__ import annotations

import grpc
import pytest
from playwright.async_api import expect

from outrider.v1 import webhook_pb2 as wp
from outrider.v1 import webhook_service_pb2 as ws
from outrider.v1 import webhook_service_pb2_grpc
from tests.console.support import Console, accessibility_problems, shot
from tests.support.harness import eventually
from tests.webhooks.receivers import Receiver

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_an_endpoint_s_deliveries_are_shown_and_one_is_sent_again(console: Console) -> None:
    receiver = Receiver(status=500).start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{console.server.port}")
    try:
        stub = webhook_service_pb2_grpc.WebhookServiceStub(channel)
        endpoint = wp.WebhookEndpoint(
            url=receiver.url, event_types=["run.ended"], description="on-call chat"
        )
        created = await stub.CreateWebhookEndpoint(
            ws.CreateWebhookEndpointRequest(endpoint=endpoint),
            metadata=console.keys.bearer("alice"),
        )
        endpoint_id = created.endpoint.name.removeprefix("webhookEndpoints/")
        run_id = await console.browser_run(
            "alice", "browser/console_done.yaml", "browser/welcome.html", task="Say hello."
        )
        await console.ended("alice", run_id)
        await eventually(lambda: len(receiver.deliveries) == 1, within=30)
        page = await console.signed_in("alice")
        await page.get_by_role("link", name="Webhooks").click()
        await page.locator(f"#endpoint-{endpoint_id}").click()
        await page.wait_for_url(f"{console.base}/webhooks/{endpoint_id}")
        row = page.locator("tbody tr").first
        await expect(row).to_contain_text("answered 500")
        await expect(row.locator("td[data-label=Response]")).to_have_text("500")
        await expect(row.locator("td[data-label=Attempts]")).to_have_text("1")
        await expect(row.locator("td[data-label=Latency]")).to_contain_text("ms")
        await expect(row).to_contain_text(run_id)
        await shot(page, "webhook-deliveries")
        assert await accessibility_problems(page) == []
        receiver.status = 204
        await row.get_by_role("button", name="Send again").click()
        await expect(page.get_by_role("status")).to_contain_text("is on its way again")
        await eventually(lambda: len(receiver.deliveries) >= 2, within=30)
        assert len(receiver.ids()) == 1  # the same webhook-id every time

        async def delivered() -> bool:
            await page.reload()
            return await page.locator("tbody tr").first.locator(".state").inner_text() == (
                "delivered"
            )

        await eventually(delivered, within=30)
        await expect(
            page.locator("tbody tr").first.locator("td[data-label=Response]")
        ).to_have_text("204")
        await shot(page, "webhook-delivered")
        other = await console.signed_in("bob")
        refused = await other.goto(f"{console.base}/webhooks/{endpoint_id}")
        assert refused is not None and refused.status == 404
        await other.context.close()
        await page.context.close()
    finally:
        await channel.close()
        receiver.stop()
