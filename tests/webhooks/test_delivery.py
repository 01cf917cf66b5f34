"""Deliveries end to end, on a real server: a run's end reaches receivers in Python and Node.js
that verify its signature with the reference library, with a small payload; deliveries are
listed with their attempts; refused addresses are refused with the reason, at creation and again
at delivery."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from outrider.v1 import webhook_pb2 as wp
from outrider.v1 import webhook_service_pb2 as ws
from tests.conftest import HarnessFactory
from tests.support.harness import eventually, rich_error, start_harness, stop_harness
from tests.webhooks.receivers import NodeReceiver, Receiver
from tests.webhooks.support import Calls, webhook_settings


async def test_a_run_end_reaches_python_and_node_receivers_signed(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness(webhooks=webhook_settings())
    calls = Calls(harness.channel)
    python = Receiver().start()
    try:
        name, secret = await calls.endpoint(python.url, "run.ended")
        python.secrets.append(secret)
        node = NodeReceiver([secret])
        try:
            await calls.endpoint(node.url)  # every type: a second secret of its own
            node_name = (
                (await calls.webhooks.ListWebhookEndpoints(ws.ListWebhookEndpointsRequest()))
                .endpoints[1]
                .name
            )
            run_id = await calls.run(steps=1)
            await eventually(lambda: python.ids("run.ended") != set(), within=20)
            (ended,) = python.of_type("run.ended")
            assert ended.verified == (True,) and ended.id.startswith("msg_")
            assert ended.data == {
                "run": f"runs/{run_id}",
                "kind": "automate",
                "state": "succeeded",
                "outcome": {"success": True},
            }
            assert ended.headers["content-type"] == "application/json"
            await eventually(lambda: len(node.lines) >= 1, within=20)
            assert node.lines[0]["type"] == "run.ended" and node.lines[0]["verified"] == [False]
            # the Node receiver was given the first endpoint's secret, not its own: refused (401)
            (delivered,) = await calls.deliveries(name)
            assert delivered.state == wp.WEBHOOK_DELIVERY_STATE_DELIVERED
            assert delivered.attempts == 1 and delivered.response_code == 204
            assert delivered.latency.ToMicroseconds() > 0 and delivered.run == f"runs/{run_id}"

            async def refused() -> bool:
                found = await calls.deliveries(node_name)
                return bool(found) and found[0].response_code == 401

            await eventually(refused, within=20)
            assert (await calls.deliveries(node_name))[0].error == "answered 401"
        finally:
            node.close()
    finally:
        python.stop()


async def test_the_node_receiver_verifies_its_own_secret(make_harness: HarnessFactory) -> None:
    harness = await make_harness(webhooks=webhook_settings())
    calls = Calls(harness.channel)
    # the secret is known only once the endpoint exists: a receiver on a fixed port learns it
    python = Receiver().start()
    port = python.port
    python.stop()
    name, secret = await calls.endpoint(f"http://127.0.0.1:{port}/hook")
    node = NodeReceiver([secret])
    try:
        endpoint = await calls.get(name)
        endpoint.url = node.url
        await calls.webhooks.UpdateWebhookEndpoint(
            ws.UpdateWebhookEndpointRequest(endpoint=endpoint, update_mask={"paths": ["url"]})
        )
        await calls.run(steps=1)
        await eventually(lambda: any(line["type"] == "run.ended" for line in node.lines), 20)
        assert all(line["verified"] == [True] for line in node.lines)
    finally:
        node.close()


@pytest.mark.parametrize(
    "url",
    [
        "http://10.1.2.3/hook",
        "http://192.168.0.9/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://100.64.0.1/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://[fd00::1]/hook",
        "http://localhost/hook",
    ],
)
async def test_a_private_address_is_refused_with_the_reason(
    make_harness: HarnessFactory, url: str
) -> None:
    harness = await make_harness(webhooks=webhook_settings(allow=()))
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await Calls(harness.channel).endpoint(url)
    error = rich_error(refused.value)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.reason == "DESTINATION_BLOCKED"
    assert "network guard refuses it" in error.violations["endpoint.url"]


async def test_an_address_allowed_at_creation_is_refused_again_at_delivery(
    tmp_path: Path,
) -> None:
    receiver = Receiver().start()
    try:
        first = await start_harness(tmp_path, webhooks=webhook_settings())
        try:
            name, _ = await Calls(first.channel).endpoint(receiver.url)
        finally:
            await stop_harness(first)
        # the operator took loopback off the allow-list: the endpoint stays, deliveries are refused
        second = await start_harness(tmp_path, webhooks=webhook_settings(allow=()))
        try:
            calls = Calls(second.channel)
            await calls.run(steps=1)

            async def refused() -> bool:
                found = await calls.deliveries(name)
                return bool(found) and found[0].attempts >= 1

            await eventually(refused, within=20)
            (delivery,) = await calls.deliveries(name)
            assert delivery.response_code == 0 and "refused by the egress guard" in delivery.error
            assert "loopback" in delivery.error and receiver.deliveries == []
        finally:
            await stop_harness(second)
    finally:
        receiver.stop()
