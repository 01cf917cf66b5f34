"""Endpoint credentials at rest: the database file holds no signing secret and no push token in
the clear (AES-GCM, bound to the endpoint's id), yet deliveries sign with them; a sealed value
opens only under its own endpoint's id and the key that sealed it; after the operator changed
the key, attempts fail saying so until a rotation drops the secret that no longer opens."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from outrider.server.core.storage.webhook_rows import Credentials
from outrider.server.core.webhooks.sealing import PREFIX, CredentialSeal, SealBroken
from outrider.v1 import webhook_service_pb2 as ws
from tests.conftest import HarnessFactory
from tests.support.harness import eventually, start_harness, stop_harness
from tests.webhooks.receivers import Receiver
from tests.webhooks.support import Calls, webhook_settings


def _stored_credentials(harness_db: str) -> list[str]:
    with sqlite3.connect(harness_db) as conn:
        return [row[0] for row in conn.execute("SELECT credentials FROM webhook_endpoints")]


async def test_secrets_are_sealed_in_the_database_and_deliveries_still_sign(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness(webhooks=webhook_settings())
    calls = Calls(harness.channel)
    receiver = Receiver().start()
    try:
        name, first = await calls.endpoint(receiver.url, "run.ended")
        rotated = await calls.webhooks.RotateWebhookSecret(ws.RotateWebhookSecretRequest(name=name))
        receiver.secrets[:] = [first, rotated.secret]
        await harness.server.store.committed()
        (stored,) = _stored_credentials(str(harness.server.settings.database_path))
        for secret in (first, rotated.secret):
            assert secret not in stored and secret.removeprefix("whsec_") not in stored
        assert stored.count(PREFIX) == 2
        await calls.run(steps=1)
        await eventually(lambda: len(receiver.deliveries) == 1, within=20)
        assert receiver.deliveries[0].verified == (True, True)  # both signatures, opened
    finally:
        receiver.stop()


async def test_after_the_key_changes_attempts_say_so_until_the_secret_is_rotated(
    tmp_path: Path,
) -> None:
    receiver = Receiver().start()
    try:
        first = await start_harness(tmp_path, webhooks=webhook_settings(), page_token_secret="k1")
        try:
            name, _ = await Calls(first.channel).endpoint(receiver.url, "run.ended")
        finally:
            await stop_harness(first)
        changed = "k2" * 16
        second = await start_harness(
            tmp_path, webhooks=webhook_settings(), page_token_secret=changed
        )
        try:
            calls = Calls(second.channel)
            await calls.run(steps=1)

            async def failed() -> bool:
                found = await calls.deliveries(name)
                return bool(found) and found[0].attempts >= 1

            await eventually(failed, within=20)
            (delivery,) = await calls.deliveries(name)
            assert "do not open with this server's key" in delivery.error
            assert receiver.deliveries == []
            rotated = await calls.webhooks.RotateWebhookSecret(
                ws.RotateWebhookSecretRequest(name=name)
            )
            assert not rotated.endpoint.HasField("previous_secret_expire_time")  # old one dropped
            receiver.secrets.append(rotated.secret)
            await calls.run(steps=1)
            await eventually(lambda: len(receiver.deliveries) >= 1, within=20)
            assert all(d.verified == (True,) for d in receiver.deliveries)
        finally:
            await stop_harness(second)
    finally:
        receiver.stop()


def test_a_sealed_value_opens_only_for_its_endpoint_and_key() -> None:
    key = os.urandom(32)
    plain = Credentials((("whsec_c2VjcmV0", 0),), "Bearer t0ken", "tok")
    sealed = CredentialSeal(key).seal("endpoint1", plain)
    assert all(value.startswith(PREFIX) for value in (sealed.secrets[0][0], sealed.token))
    assert "t0ken" not in sealed.authorization
    assert CredentialSeal(key).seal("endpoint1", sealed) == sealed  # sealed once only
    assert CredentialSeal(key).open("endpoint1", sealed) == plain
    assert CredentialSeal(key).open("endpoint1", plain) == plain  # written before sealing
    with pytest.raises(SealBroken, match="endpoint2"):
        CredentialSeal(key).open("endpoint2", sealed)  # moved to another row
    with pytest.raises(SealBroken):
        CredentialSeal(os.urandom(32)).open("endpoint1", sealed)  # another server's key
