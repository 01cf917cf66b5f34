"""Takeovers that end by time: a request nobody takes, a person who stops sending input (while
input keeps their control alive), and handing back afterwards, which still answers. A server
with short TTLs for the module: 4 s for a request, 2 s of a person's silence."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
import pytest_asyncio

from outrider.v1 import browser_control_pb2 as bc
from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import interaction_pb2 as ip
from tests.browser.takeover_kit import (
    Followed,
    TakeoverServer,
    create_run,
    person,
    start_takeover_server,
    stop_takeover_server,
)
from tests.support.harness import rich_error
from tests.support.sites import fixture_sites

pytestmark = pytest.mark.asyncio(loop_scope="module")
TAKEOVER_TTL = 2.0


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[TakeoverServer]:
    with fixture_sites() as sites:
        started = await start_takeover_server(
            tmp_path_factory.mktemp("expiry"),
            sites,
            interaction_ttl=4.0,
            takeover_ttl=TAKEOVER_TTL,
        )
        yield started
        await stop_takeover_server(started)


async def test_a_request_nobody_takes_expires_and_hand_back_still_answers(
    server: TakeoverServer,
) -> None:
    run = await create_run(server, "Wait for a person.")
    followed = Followed(server, run)
    requested = (await followed.until("takeover_requested")).takeover_requested
    ended = (await followed.until("takeover_ended")).takeover_ended
    assert (ended.ending, ended.driver) == (bc.TAKEOVER_ENDING_EXPIRED, "")
    at_screen = person(server, run)
    late = await at_screen.hand_back()  # the person arrives late: answered, nothing breaks
    assert late.name == f"interactions/{requested.takeover_id}"
    assert late.state == ip.INTERACTION_STATE_EXPIRED
    assert late.takeover_control.ending == bc.TAKEOVER_ENDING_EXPIRED
    events = await followed.ended()
    assert events[-2].automate.complete.error.message.endswith("Nobody came.")
    after_the_run = await at_screen.hand_back()  # even after the run ended
    assert after_the_run.name == late.name and after_the_run.state == ip.INTERACTION_STATE_EXPIRED


async def test_input_keeps_control_and_silence_gives_it_back(server: TakeoverServer) -> None:
    run = await create_run(server, "Wait for a person.")
    followed = Followed(server, run)
    await followed.until("takeover_requested")
    at_screen = person(server, run)
    taken = await at_screen.take_over()
    for _ in range(6):  # 3 s of input, longer than the 2 s TTL
        moved = await at_screen.send([move(10, 10)])
        await asyncio.sleep(0.5)
    assert moved.expire_time.ToSeconds() > taken.expire_time.ToSeconds()  # renewed
    assert not any(e.HasField("takeover_ended") for e in followed.events)
    ended = (await followed.until("takeover_ended")).takeover_ended  # silence from here
    assert (ended.ending, ended.driver, ended.input_events) == (
        bc.TAKEOVER_ENDING_EXPIRED, "anonymous", 6
    )  # fmt: skip
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await at_screen.send([move(20, 20)])
    refused = rich_error(caught.value)
    assert (refused.code, refused.reason) == (
        grpc.StatusCode.FAILED_PRECONDITION, "TAKEOVER_EXPIRED"
    )  # fmt: skip
    back = await at_screen.hand_back(takeover=taken.name)  # after it expired: still answered
    assert back.state == ip.INTERACTION_STATE_EXPIRED
    events = await followed.ended()
    assert events[-2].automate.complete.final_answer == "The person left."


def move(x: float, y: float) -> bcs.InputEvent:
    return bcs.InputEvent(mouse=bcs.MouseInput(action=bcs.MOUSE_ACTION_MOVE, x=x, y=y))
