"""Webhook endpoints on the REST port (/v1/webhooks/endpoints...): create (the secret shown
once), read, list, a run's end delivered and listed with its attempt, sent again with the same
webhook-id, rotate, disable, delete; bad bodies are 400 with field violations, refused
addresses 400 with the reason, and another tenant's endpoint 404 like a missing one."""

from __future__ import annotations

from pathlib import Path

import grpc
import httpx

from tests.rest.conftest import RestFactory
from tests.security.tenants import CALLER, Keys
from tests.support.harness import eventually
from tests.webhooks.receivers import Receiver
from tests.webhooks.support import Calls, webhook_settings

ENDPOINTS = "/v1/webhooks/endpoints"


async def test_an_endpoint_over_rest_from_create_to_a_delivery_sent_again(
    make_rest: RestFactory,
) -> None:
    case = await make_rest(webhooks=webhook_settings())
    receiver = Receiver().start()
    try:
        async with httpx.AsyncClient(base_url=case.origin, timeout=30) as http:
            body = {"url": receiver.url, "eventTypes": ["run.ended"], "description": "ops"}
            created = await http.post(ENDPOINTS, json=body)
            assert created.status_code == 201, created.text
            endpoint, secret = created.json()["endpoint"], created.json()["secret"]
            assert secret.startswith("whsec_") and secret not in str(endpoint)
            assert endpoint["enabled"] and endpoint["eventTypes"] == ["run.ended"]
            receiver.secrets.append(secret)
            path = f"{ENDPOINTS}/{endpoint['name'].removeprefix('webhookEndpoints/')}"
            async with grpc.aio.insecure_channel(f"127.0.0.1:{case.grpc.port}") as channel:
                run_id = await Calls(channel).run(steps=1)
            await eventually(lambda: len(receiver.deliveries) == 1, within=20)
            assert receiver.deliveries[0].verified == (True,)
            (delivery,) = (await http.get(f"{path}/deliveries")).json()["deliveries"]
            assert delivery["run"] == f"runs/{run_id}" and delivery["attempts"] == 1
            assert delivery["state"] == "delivered"
            assert delivery["responseCode"] == 204
            message_id = delivery["name"].rsplit("/", 1)[1]
            again = await http.post(f"{path}/deliveries/{message_id}/resend", json={})
            assert again.status_code == 200, again.text
            await eventually(lambda: len(receiver.deliveries) == 2, within=20)
            assert receiver.deliveries[1].id == receiver.deliveries[0].id == message_id

            rotated = await http.post(f"{path}/rotate", json={"overlapSeconds": 60})
            assert rotated.json()["secret"] not in ("", secret)
            assert "previousSecretExpireTime" in rotated.json()["endpoint"]
            disabled = await http.patch(path, json={"enabled": False})
            assert disabled.json()["enabled"] is False
            assert (await http.get(path)).json()["enabled"] is False
            listed = (await http.get(ENDPOINTS)).json()["endpoints"]
            assert [e["name"] for e in listed] == [endpoint["name"]]
            assert (await http.delete(path)).status_code == 200
            assert (await http.get(path)).status_code == 404
    finally:
        receiver.stop()


async def test_bad_endpoint_requests_are_400_and_another_tenant_s_endpoint_404(
    make_rest: RestFactory, tmp_path: Path
) -> None:
    keys = Keys(tmp_path / "keys.toml")
    keys.add("alice", "alpha", CALLER)
    keys.add("bob", "beta", CALLER)
    case = await make_rest(keys_file=keys.file, webhooks=webhook_settings(allow=()))
    async with httpx.AsyncClient(base_url=case.origin, timeout=30) as http:
        alice, bob = keys.header("alice"), keys.header("bob")
        private = await http.post(ENDPOINTS, json={"url": "http://10.1.2.3/h"}, headers=alice)
        assert private.status_code == 400
        error = private.json()["error"]
        assert error["reason"] == "DESTINATION_BLOCKED"
        assert [v["field"] for v in error["fieldViolations"]] == ["endpoint.url"]
        body = {"url": "https://hooks.example.com/h", "eventTypes": ["nope"]}
        typed = await http.post(ENDPOINTS, json=body, headers=alice)
        assert typed.status_code == 400
        assert typed.json()["error"]["fieldViolations"][0]["field"] == "endpoint.event_types[0]"
        unknown = await http.post(ENDPOINTS, json={"url": 5}, headers=alice)
        assert unknown.status_code == 400 and unknown.json()["error"]["fieldViolations"]

        made = await http.post(
            ENDPOINTS, json={"url": "https://hooks.example.com/h"}, headers=alice
        )
        assert made.status_code == 201, made.text
        path = f"{ENDPOINTS}/{made.json()['endpoint']['name'].removeprefix('webhookEndpoints/')}"
        overlap = await http.post(f"{path}/rotate", json={"overlapSeconds": "soon"}, headers=alice)
        assert overlap.status_code == 400
        assert overlap.json()["error"]["fieldViolations"][0]["field"] == "overlapSeconds"
        absent = f"{ENDPOINTS}/{'0' * 24}"
        for method in ("GET", "PATCH", "DELETE"):
            change = {"enabled": False}
            foreign = await http.request(method, path, json=change, headers=bob)
            missing = await http.request(method, absent, json=change, headers=alice)
            assert foreign.status_code == missing.status_code == 404
            assert foreign.json()["error"]["message"].replace(path.rsplit("/", 1)[1], "X") == (
                missing.json()["error"]["message"].replace("0" * 24, "X")
            )
        assert (await http.get(ENDPOINTS, headers=bob)).json()["endpoints"] == []
        assert (await http.get(path, headers=alice)).json()["enabled"] is True
