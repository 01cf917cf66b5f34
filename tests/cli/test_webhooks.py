"""`outrider webhooks ...` against a real server: an endpoint made, listed, shown, disabled and
enabled, its deliveries listed and one sent again, its secret rotated, the endpoint deleted; a
refused URL exits 3 with the guard's reason."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from outrider.client import AsyncClient, automate_params
from outrider.server.grpc_edge.server import OutriderServer
from outrider.v1 import run_pb2
from tests.cli.conftest import CliServer, PasswordAgent
from tests.support.harness import eventually, settings_for_tests
from tests.webhooks.receivers import Receiver
from tests.webhooks.support import webhook_settings


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[CliServer]:
    agent = PasswordAgent()
    agents = {run_pb2.RUN_KIND_AUTOMATE: agent, run_pb2.RUN_KIND_RESEARCH: agent}
    settings = settings_for_tests(tmp_path / "server", webhooks=webhook_settings())
    served = OutriderServer(settings, agents)  # type: ignore[arg-type]
    await served.start()
    yield CliServer(served, agent)
    await served.stop()


async def _cli(server: CliServer, *args: str) -> list[dict[str, object]]:
    done = await asyncio.to_thread(server.run, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.mark.timeout(240)  # a dozen commands, each a Python process of its own
async def test_webhooks_commands_manage_an_endpoint_and_its_deliveries(server: CliServer) -> None:
    receiver = Receiver().start()
    try:
        (created,) = await _cli(server, "webhooks", "create", receiver.url, "--event", "run.ended")
        endpoint, secret = created["endpoint"], str(created["secret"])
        assert isinstance(endpoint, dict) and secret.startswith("whsec_")
        receiver.secrets.append(secret)
        endpoint_id = str(endpoint["name"]).removeprefix("webhookEndpoints/")
        listed, (off,) = await asyncio.gather(
            _cli(server, "webhooks", "list"), _cli(server, "webhooks", "disable", endpoint_id)
        )
        assert [e["url"] for e in listed] == [receiver.url]
        assert "enabled" not in off  # false: JSON leaves it out
        (on,) = await _cli(server, "webhooks", "enable", endpoint_id)
        assert on["enabled"] is True
        async with AsyncClient(server.target) as client:
            run = await client.create_run(automate_params("t", data={"steps": 1}))
        await eventually(lambda: len(receiver.deliveries) == 1, within=20)
        assert receiver.deliveries[0].verified == (True,)

        async def delivered() -> bool:
            found = await _cli(server, "webhooks", "deliveries", endpoint_id)
            return bool(found) and found[0]["state"] == "WEBHOOK_DELIVERY_STATE_DELIVERED"

        await eventually(delivered, within=20)
        (delivery,) = await _cli(server, "webhooks", "deliveries", endpoint_id)
        assert delivery["responseCode"] == 204 and delivery["attempts"] == 1
        assert delivery["run"] == run.name
        await _cli(server, "webhooks", "resend", endpoint_id, str(delivery["messageId"]))
        await eventually(lambda: len(receiver.deliveries) == 2, within=20)
        assert receiver.deliveries[1].id == receiver.deliveries[0].id
        (rotated,) = await _cli(server, "webhooks", "rotate", endpoint_id, "--overlap", "1")
        assert str(rotated["secret"]).startswith("whsec_") and rotated["secret"] != secret
        await _cli(server, "webhooks", "delete", endpoint_id)
        missing, refused = await asyncio.gather(
            asyncio.to_thread(server.run, "webhooks", "show", endpoint_id),
            asyncio.to_thread(server.run, "webhooks", "create", "http://169.254.169.254/latest"),
        )
        assert missing.returncode == 3 and "NOT_FOUND" in missing.stdout
        assert refused.returncode == 3 and "DESTINATION_BLOCKED" in refused.stdout
    finally:
        receiver.stop()
