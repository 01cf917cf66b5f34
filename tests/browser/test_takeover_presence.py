"""A person in control who watches the screen is there as long as a screen of theirs is open: when
the last one closes (their console tab closed, their connection lost) control comes back to the
agent after a short grace, not after the whole lease, and every viewer is told the new end at
once; a screen opened again within the grace (a reload) keeps control. Someone who drives
without watching keeps the lease. Real Chromium, the browser agent, gRPC; a 120 s lease and a
1.5 s grace for the module."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from outrider.v1 import browser_control_pb2 as bc
from outrider.v1 import browser_control_service_pb2 as bcs
from tests.browser.takeover_kit import (
    Followed,
    TakeoverServer,
    create_run,
    person,
    start_takeover_server,
    stop_takeover_server,
    watching,
)
from tests.security.tenants import CALLER, Keys
from tests.support.harness import eventually
from tests.support.sites import fixture_sites

pytestmark = pytest.mark.asyncio(loop_scope="module")
LEASE, GRACE = 120.0, 1.5


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    """Two people of one tenant: the one in control, and a colleague watching."""
    found = Keys(tmp_path_factory.mktemp("keys") / "keys.toml")
    for principal in ("ana", "ben"):
        found.add(principal, "alpha", CALLER)
    return found


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(
    tmp_path_factory: pytest.TempPathFactory, keys: Keys
) -> AsyncIterator[TakeoverServer]:
    with fixture_sites() as sites:
        started = await start_takeover_server(
            tmp_path_factory.mktemp("presence"),
            sites,
            takeover_ttl=LEASE,
            takeover_grace=GRACE,
            keys_file=keys.file,
        )
        yield started
        await stop_takeover_server(started)


async def asking(server: TakeoverServer, keys: Keys) -> tuple[str, Followed]:
    """ana's run, once its agent asks for a person."""
    run = await create_run(server, "Wait for a person.", metadata=keys.bearer("ana"))
    followed = Followed(server, run, keys.bearer("ana"))
    await followed.until("takeover_requested")
    return run, followed


async def test_control_comes_back_soon_after_the_drivers_last_screen_closed(
    server: TakeoverServer, keys: Keys
) -> None:
    run, followed = await asking(server, keys)
    driver, colleague = (
        person(server, run, keys.bearer("ana")),
        person(server, run, keys.bearer("ben")),
    )
    async with watching(colleague) as theirs:
        async with watching(driver), watching(driver):  # the screen and the bar's stream
            taken = await driver.take_over()
            assert taken.expire_time.ToSeconds() - time.time() > LEASE - 10
        closed = time.monotonic()
        ended = (await followed.until("takeover_ended", within=30)).takeover_ended
        took = time.monotonic() - closed
        shortened = [s for s in theirs.statuses if s.state == bcs.CONTROL_STATE_PERSON][-1]
    assert ended.ending == bc.TAKEOVER_ENDING_EXPIRED and ended.driver == "ana"
    assert ended.note == "the console page of ana closed"
    assert GRACE - 0.5 < took < GRACE + 20, took  # the grace, not the 120 s lease
    assert shortened.expire_time.ToSeconds() - time.time() < GRACE + 1  # the colleague was told
    await followed.ended()


async def test_a_screen_opened_again_within_the_grace_keeps_control(
    server: TakeoverServer, keys: Keys
) -> None:
    run, followed = await asking(server, keys)
    driver = person(server, run, keys.bearer("ana"))
    async with watching(driver):
        await driver.take_over()
    async with watching(driver) as again:  # the page reloaded
        await eventually(lambda: bool(again.statuses), within=10)
        await asyncio.sleep(GRACE * 2)
        assert "takeover_ended" not in followed.names
        status = again.statuses[-1]
        assert status.state == bcs.CONTROL_STATE_PERSON
        assert status.expire_time.ToSeconds() - time.time() > LEASE - 20  # the lease again
        await driver.hand_back(note="done")
    ended = (await followed.until("takeover_ended")).takeover_ended
    assert ended.ending == bc.TAKEOVER_ENDING_HANDED_BACK
    await followed.ended()


async def test_a_driver_who_never_watched_keeps_the_lease(
    server: TakeoverServer, keys: Keys
) -> None:
    run, followed = await asking(server, keys)
    driver = person(server, run, keys.bearer("ana"))
    await driver.take_over()
    async with watching(person(server, run, keys.bearer("ben"))):  # someone else, briefly
        pass
    await asyncio.sleep(GRACE * 2)
    assert "takeover_ended" not in followed.names
    await driver.hand_back()
    await followed.ended()
