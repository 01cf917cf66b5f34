"""The REST resources of profiles and credentials: created, read, listed, logged in by hand and
deleted; a credential's values go in with PUT and come out of no response; another tenant's are
404 as missing ones; bad bodies are 400 with field violations; a run names them in its options."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.rest.conftest import RestFactory
from tests.security.tenants import two_tenants

SECRET = {"username": "ada", "password": "pw-canary-rest", "totpSeed": "JBSWY3DPEHPK3PXPJBSWY3DP"}


async def test_profiles_and_credentials_over_rest(make_rest: RestFactory, tmp_path: Path) -> None:
    (tmp_path / "keys").mkdir()
    keys = two_tenants(tmp_path / "keys")
    case = await make_rest(keys_file=keys.file)
    alice, bob = keys.header("alpha-1"), keys.header("beta-1")
    async with httpx.AsyncClient(base_url=case.origin) as http:
        check = {"url": "https://crm.example/account", "text": "Sign out"}
        made = await http.post(
            "/v1/profiles", json={"profileId": "crm", "check": check}, headers=alice
        )
        assert made.status_code == 201 and made.json()["name"] == "profiles/crm"
        assert (
            await http.post("/v1/profiles", json={"profileId": "crm"}, headers=alice)
        ).status_code == 409
        bad = await http.post("/v1/profiles", json={"profileId": 7}, headers=alice)
        assert bad.status_code == 400 and "profileId" in bad.text
        listed = await http.get("/v1/profiles", headers=alice)
        assert [p["name"] for p in listed.json()["profiles"]] == ["profiles/crm"]
        login = await http.post("/v1/profiles/crm/login", json={}, headers=alice)
        assert login.status_code == 201, login.text
        run = login.json()
        assert run["options"]["byHand"] and run["params"]["url"] == check["url"]
        for path in ("/v1/profiles/crm", "/v1/profiles/never"):
            missing = await http.get(path, headers=bob)
            assert missing.status_code == 404 and missing.json()["error"]["reason"] == "NOT_FOUND"
        body = {"origins": ["https://crm.example"], **SECRET}
        created = await http.put("/v1/credentials/crm", json=body, headers=alice)
        replaced = await http.put("/v1/credentials/crm", json=body, headers=alice)
        assert (created.status_code, replaced.status_code) == (201, 200)
        shown = (await http.get("/v1/credentials/crm", headers=alice)).json()
        assert (
            shown["hasPassword"]
            and shown["hasTotp"]
            and shown["origins"] == ["https://crm.example"]
        )
        everything = created.text + replaced.text + str(shown)
        assert "pw-canary-rest" not in everything and SECRET["totpSeed"] not in everything
        wrong = await http.put("/v1/credentials/x", json={"origins": ["ftp://a"]}, headers=alice)
        assert wrong.status_code == 400 and "origins[0]" in wrong.text
        assert (await http.get("/v1/credentials/crm", headers=bob)).status_code == 404
        assert (await http.get("/v1/credential-uses", headers=alice)).json()["uses"] == []
        started = await http.post(
            "/v1/automate",
            json={"task": "x", "options": {"profile": "profiles/crm", "profileSave": "on_success",
                                          "credentials": ["credentials/crm"]}},
            headers=alice,
        )  # fmt: skip
        assert started.status_code == 200, started.text
        for path in ("/v1/credentials/crm", "/v1/profiles/crm"):
            assert (await http.delete(path, headers=bob)).status_code == 404
            assert (await http.delete(path, headers=alice)).status_code == 204
