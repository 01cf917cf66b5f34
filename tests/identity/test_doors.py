"""Access tokens of the IdP on every door (gRPC, REST, A2A, MCP, the console): tokens the IdP issued
for the door's audience get in as the principal their claims name, keys keep working beside
them, and every token the IdP did not issue for this door is refused the same way."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.identity.doors import DOORS, audience_of
from tests.identity.idp import new_key
from tests.identity.support import API, IdentityCase

pytestmark = pytest.mark.asyncio(loop_scope="module")
NOW = int(time.time())
INVALID = "the access token is not valid"


def claims(case: IdentityCase, door: str, **changed: Any) -> dict[str, Any]:
    """What the IdP puts into a client-credentials token for `door`, with `changed`."""
    usual = {
        "sub": "billing-service",
        "client_id": "billing-service",
        "tenant": "billing",
        "scope": "runs.read runs.start",
        "aud": audience_of(case, door),
    }
    return usual | changed


def tampered(token: str) -> str:
    """The IdP's token with one signature byte changed."""
    head, payload, signature = token.split(".")
    flipped = "A" if signature[10] != "A" else "B"
    return f"{head}.{payload}.{signature[:10]}{flipped}{signature[11:]}"


def other_payload(case: IdentityCase, token: str) -> str:
    """The IdP's signature over claims the caller rewrote (another tenant)."""
    head, _, signature = token.split(".")
    forged = case.idp.unsigned({"tenant": "alpha", "sub": "billing-service"}).split(".")[1]
    return f"{head}.{forged}.{signature}"


FORGED: dict[str, Callable[[IdentityCase, str], str]] = {
    "expired": lambda c, d: c.idp.mint(claims(c, d, iat=NOW - 7200, exp=NOW - 3600)),
    "not yet valid": lambda c, d: c.idp.mint(claims(c, d, nbf=NOW + 3600)),
    "issued in the future": lambda c, d: c.idp.mint(claims(c, d, iat=NOW + 3600)),
    "no expiry": lambda c, d: c.idp.mint(claims(c, d, exp=None)),
    "wrong issuer": lambda c, d: c.idp.mint(claims(c, d, iss="http://127.0.0.1:1/elsewhere")),
    "wrong audience": lambda c, d: c.idp.mint(claims(c, d, aud="api://another-service")),
    "another door's audience": lambda c, d: c.idp.mint(
        claims(c, d, aud=c.mcp_url if d != "mcp" else API)
    ),
    "unknown kid": lambda c, d: c.idp.mint(claims(c, d), key=new_key()),
    "alg none": lambda c, d: c.idp.unsigned(claims(c, d)),
    "HS256 with the public key": lambda c, d: c.idp.hmac_with_public_key(claims(c, d)),
    "tampered signature": lambda c, d: tampered(c.idp.mint(claims(c, d))),
    "rewritten claims": lambda c, d: other_payload(c, c.idp.mint(claims(c, d))),
}


@pytest.mark.parametrize("door", DOORS)
async def test_a_token_the_idp_issued_for_the_door_gets_in(
    identity: IdentityCase, door: str
) -> None:
    token = identity.service_token(resource=audience_of(identity, door))
    assert (await DOORS[door](identity, token)).outcome == "ok"


@pytest.mark.parametrize("door", DOORS)
async def test_keys_keep_working_beside_tokens(identity: IdentityCase, door: str) -> None:
    key = identity.keys.keys["ops-key"]
    assert (await DOORS[door](identity, key)).outcome == "ok"
    wrong = await DOORS[door](identity, "not-a-key")
    assert wrong.outcome == "unauthenticated"


@pytest.mark.parametrize("case", FORGED)
@pytest.mark.parametrize("door", DOORS)
async def test_tokens_not_issued_for_this_door_are_refused(
    identity: IdentityCase, door: str, case: str
) -> None:
    answer = await DOORS[door](identity, FORGED[case](identity, door))
    assert answer.outcome == "unauthenticated", answer
    expected = "the access token expired" if case == "expired" else INVALID
    assert expected in answer.message  # and nothing about why
    if door in ("grpc", "rest"):
        assert answer.reason == ("TOKEN_EXPIRED" if case == "expired" else "TOKEN_INVALID")
    if door == "mcp":
        assert 'error="invalid_token"' in answer.challenge
        assert "resource_metadata=" in answer.challenge


@pytest.mark.parametrize("door", DOORS)
async def test_a_token_of_the_right_audience_but_no_scope_is_denied(
    identity: IdentityCase, door: str
) -> None:
    token = identity.idp.mint(claims(identity, door, scope="openid email"))
    answer = await DOORS[door](identity, token)
    assert answer.outcome == "denied", answer
    if door in ("grpc", "rest"):
        assert answer.reason == "IDENTITY_NOT_MAPPED"
    if door == "mcp":
        assert 'error="insufficient_scope"' in answer.challenge


async def test_a_browsers_basic_credentials_are_no_console_credential(
    identity: IdentityCase,
) -> None:
    """A proxy's HTTP Basic credentials that a browser repeats are not taken for a bearer
    credential: the console still asks for its own sign-in."""
    async with httpx.AsyncClient(timeout=30) as http:
        page = await http.get(
            f"{identity.origin}/console/", headers={"Authorization": "Basic dXNlcjpwYXNz"}
        )
    assert page.status_code == 303
    assert "/console/sign-in" in page.headers["location"]
