"""API-key sign-in to the console is the way in while the IdP is down, and a setting turns it
off: then the sign-in page offers the IdP only, a key does not sign in, key sign-ins already made
end, and keys still work as API credentials."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from outrider.server.core.errors import Unauthenticated
from outrider.server.security.authn import Keyring
from outrider.server.security.sessions import SessionSigner
from tests.identity.support import IdentityCase, identity_server

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sso_only(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[IdentityCase]:
    async with identity_server(tmp_path_factory.mktemp("sso-only"), key_sign_in=False) as case:
        yield case


async def test_the_sign_in_page_offers_the_idp_only(sso_only: IdentityCase) -> None:
    async with httpx.AsyncClient(base_url=sso_only.origin, timeout=30) as http:
        page = await http.get("/console/sign-in")
        tried = await http.post(
            "/console/sign-in",
            data={"key": sso_only.keys.keys["ops-key"], "next": "/console/"},
            headers={"Origin": sso_only.origin},
        )
        api = await http.get("/v1/runs", headers=sso_only.keys.header("ops-key"))
    assert "Sign in with the test IdP" in page.text
    assert 'name="key"' not in page.text
    assert tried.status_code == 401 and "turned off" in tried.text
    assert "set-cookie" not in tried.headers
    assert api.status_code == 200  # keys are still API credentials


async def test_key_sign_ins_made_before_end(sso_only: IdentityCase) -> None:
    keyring: Keyring = sso_only.case.grpc.keyring
    key = sso_only.keys.keys["ops-key"]
    before = SessionSigner(b"k" * 32, 3600, key_sign_in=True)
    cookie, _ = before.with_key(keyring, key)
    assert before.verify(cookie, keyring, None).principal.id == "ops-key"
    after = SessionSigner(b"k" * 32, 3600, key_sign_in=False)
    with pytest.raises(Unauthenticated):
        after.verify(cookie, keyring, None)
