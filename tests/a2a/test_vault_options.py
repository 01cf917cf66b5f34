"""An A2A message names a profile and credentials in its data's `options` (the contract's JSON
names): another tenant's are the same not-found as none; its own start the run with them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.rest.support import RestCase, start_rest
from tests.security.tenants import CALLER, Keys

V1 = {"A2A-Version": "1.0"}


@pytest.fixture
async def edge(tmp_path: Path) -> AsyncIterator[tuple[RestCase, Keys]]:
    keys = Keys(tmp_path / "keys.toml")
    keys.add("alice", "alpha", CALLER)
    keys.add("bob", "beta", CALLER)
    case = await start_rest(tmp_path / "data", keys_file=keys.file)
    yield case, keys
    await case.stop()


async def send(case: RestCase, keys: Keys, who: str, options: dict[str, str]) -> dict[str, object]:
    data = {"skill": "browse", "url": "https://crm.example/", "options": options}
    message = {"role": "ROLE_USER", "messageId": "m1", "parts": [{"text": "t"}, {"data": data}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    async with httpx.AsyncClient(timeout=30) as http:
        response = await http.post(f"{case.origin}/a2a", json=body, headers=keys.header(who) | V1)
    answer: dict[str, object] = response.json()
    return answer


async def test_a_message_names_its_tenant_s_profile_and_credentials(
    edge: tuple[RestCase, Keys],
) -> None:
    case, keys = edge
    async with httpx.AsyncClient(base_url=case.origin) as http:
        made = await http.post(
            "/v1/profiles", json={"profileId": "crm"}, headers=keys.header("alice")
        )
        assert made.status_code == 201
    options = {"profile": "profiles/crm", "profileSave": "PROFILE_SAVE_ON_SUCCESS"}
    refused = await send(case, keys, "bob", options)
    error = refused["error"]
    assert isinstance(error, dict) and "profiles/crm does not exist" in str(error["message"])
    started = await send(case, keys, "alice", options)
    assert "result" in started, started
