"""The IdP's keys as the server holds them (security/provider.py): read through the outbound
guard, read again for an unknown kid at most once per interval, and again after their maximum
age, so a withdrawn key stops verifying."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from outrider.server.security.provider import IdentityProvider, SigningKeys
from outrider.server.settings.identity import OidcSettings
from tests.identity.idp import Idp, running_idp
from tests.identity.support import idp_config

pytestmark = pytest.mark.asyncio(loop_scope="module")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def idp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Idp]:
    folder: Path = tmp_path_factory.mktemp("signing-keys")
    with running_idp(folder, idp_config("http://127.0.0.1:9")) as running:
        yield running


def signing_keys(idp: Idp, clock: Clock, allowed: bool = True) -> SigningKeys:
    settings = OidcSettings(
        issuer=idp.issuer,
        network_allow=(f"127.0.0.1:{idp.port}",) if allowed else (),
        jwks_refresh=60.0,
        jwks_max_age=3600.0,
    )
    return SigningKeys(IdentityProvider(settings), settings, clock)


async def test_an_unknown_kid_reads_the_keys_at_most_once_per_interval(idp: Idp) -> None:
    clock = Clock()
    keys = signing_keys(idp, clock)
    assert await keys.find(idp.keys[0]["kid"]) is not None
    new = idp.rotate()["kid"]
    clock.now += 30
    assert await keys.find(new) is None  # read 30 s ago: made-up kids cannot make it read more
    clock.now += 31
    assert await keys.find(new) is not None


async def test_a_withdrawn_key_stops_verifying_after_the_maximum_age(idp: Idp) -> None:
    clock = Clock()
    keys = signing_keys(idp, clock)
    old = idp.keys[0]["kid"]
    assert await keys.find(old) is not None
    idp.rotate(keep_old=False)
    clock.now += 3000
    assert await keys.find(old) is not None  # still within its age
    clock.now += 601
    assert await keys.find(old) is None
    assert keys.cached(idp.keys[0]["kid"]) is not None


async def test_the_keys_are_read_through_the_outbound_guard(idp: Idp) -> None:
    keys = signing_keys(idp, Clock(), allowed=False)
    assert await keys.find(idp.keys[0]["kid"]) is None  # loopback, not allowed: never read
