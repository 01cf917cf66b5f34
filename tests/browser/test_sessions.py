"""Browser sessions in Debian Chromium: a run in a session starts where the last one left the
browser (its page, its cookies), with the memory of the earlier runs, and nothing else can."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import browser_control_service_pb2_grpc as bcg
from outrider.v1 import params_pb2, run_pb2, run_service_pb2, session_pb2, session_service_pb2
from tests.browser.conftest import BrowserCase, BrowserCaseFactory
from tests.browser.takeover_kit import Person
from tests.sessions.support import create, kinds, session_events, sessions_stub
from tests.support.cart_shop import CartShop, cart_shop
from tests.support.harness import RichError, eventually, rich_error
from tests.support.requests import collect, names, read_rest


@pytest.fixture
def shop() -> Iterator[CartShop]:
    with cart_shop() as running:
        yield running


def in_session(session: str, task: str, url: str = "") -> run_service_pb2.AutomateRequest:
    return run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(task=task, url=url, trusted_hostnames=["127.0.0.1"]),
        options=params_pb2.RunOptions(session=session),
    )


async def test_check_out_in_the_same_browser_finds_the_cart_the_first_run_filled(
    browser_case: BrowserCaseFactory, shop: CartShop
) -> None:
    port = shop.url.rsplit(":", 1)[1]
    case = await browser_case("session_cart.yaml", network_allow=(f"127.0.0.1:{port}",))
    channel = case.harness.channel
    session = await create(channel, start_url=f"{shop.url}/", idle=120, life=300)
    assert session.current_url == f"{shop.url}/" and session.current_title == "Cart Shop"

    first = await collect(
        case.harness.runs.Automate(in_session(session.name, "Add the Red Mug to the cart"))
    )
    assert first[-2].automate.complete.success, names(first)
    assert shop.carts and list(shop.carts.values()) == [["red-mug"]]
    after_first = (
        await sessions_stub(channel).GetSession(
            session_service_pb2.GetSessionRequest(name=session.name)
        )
    ).session
    assert after_first.current_url == f"{shop.url}/cart" and after_first.run_count == 1

    shop_visits = shop.count("GET", "/")
    second = await collect(
        case.harness.runs.Automate(in_session(session.name, "Check out the cart"))
    )
    complete = second[-2].automate.complete
    assert complete.success and complete.final_answer == "Order 1 placed: Red Mug.", names(second)
    assert shop.orders == [["red-mug"]]
    assert shop.count("GET", "/") == shop_visits and shop.count("GET", "/cart") == 1  # no way back
    navigated = [
        e.automate.browser_navigated.url for e in second if e.automate.HasField("browser_navigated")
    ]
    assert navigated == [f"{shop.url}/cart", f"{shop.url}/order/1"]  # started where run 1 ended
    assert case.prompts()  # the scripted model's expectations (the memory, the page) all held

    await sessions_stub(channel).EndSession(
        session_service_pb2.EndSessionRequest(name=session.name)
    )
    events = await session_events(channel, session.name)
    assert kinds(events)[0] == "session_started" and kinds(events)[-1] == "session_ended"
    runs_in_order = list(dict.fromkeys(e.invocation for e in events if e.invocation))
    assert runs_in_order == [first[0].run, second[0].run]
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    ended = (await case.harness.runs.GetRun(run_service_pb2.GetRunRequest(name=second[0].run))).run
    assert ended.state == run_pb2.RUN_STATE_SUCCEEDED and ended.options.session == session.name


async def test_a_person_uses_the_session_browser_between_runs_and_the_next_run_goes_on_there(
    browser_case: BrowserCaseFactory, shop: CartShop
) -> None:
    """A by-hand run in the session lends its browser to a person (to log in, to fix something):
    the session is busy meanwhile; their page and note are where the next run starts."""
    port = shop.url.rsplit(":", 1)[1]
    case = await browser_case("session_hands_on.yaml", network_allow=(f"127.0.0.1:{port}",))
    channel, runs = case.harness.channel, case.harness.runs
    session = await create(channel, start_url=f"{shop.url}/", idle=120, life=300)
    lend = run_service_pb2.CreateRunRequest(
        automate=params_pb2.AutomateParams(task="Use the browser", interactive=True),
        options=params_pb2.RunOptions(session=session.name, by_hand=True),
    )
    hands_on = (await runs.CreateRun(lend)).run.name
    busy = await refused_start(runs.Automate(in_session(session.name, "Add it to the cart")))
    assert (busy.code, busy.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_BUSY")
    assert "a person has its browser" in busy.message
    lent_out = await sessions_stub(channel).GetSession(
        session_service_pb2.GetSessionRequest(name=session.name)
    )
    assert lent_out.session.state == session_pb2.SESSION_STATE_CONTROLLED
    assert lent_out.session.active_run == hands_on
    at_screen = Person(bcg.BrowserControlServiceStub(channel), hands_on)
    await eventually(lambda: asking_for_a_person(case, hands_on), within=60)
    await at_screen.take_over()
    red_mug = f"{shop.url}/mugs/red-mug"
    goto = bcs.NavigateInput(action=bcs.NAVIGATE_ACTION_GOTO, url=red_mug)
    await at_screen.send([bcs.InputEvent(navigate=goto)])
    await at_screen.hand_back("I opened the Red Mug for you")
    lent = await ended_run(runs, hands_on)
    assert lent.outcome.success, lent.outcome
    assert lent.outcome.result == "A person handed the browser back: I opened the Red Mug for you"
    idle = await sessions_stub(channel).GetSession(
        session_service_pb2.GetSessionRequest(name=session.name)
    )
    assert idle.session.current_url == red_mug and idle.session.run_count == 1

    added = await collect(runs.Automate(in_session(session.name, "Add it to the cart")))
    assert added[-2].automate.complete.success, names(added)
    assert list(shop.carts.values()) == [["red-mug"]]
    assert shop.count("GET", "/mugs/red-mug") == 1  # the person's visit: the run did not go back
    assert len(case.prompts()) == 4  # planner, two actor turns, validator: nothing searched


def asking_for_a_person(case: BrowserCase, run: str) -> bool:
    control = case.harness.server.runs.browsers.of(run.removeprefix("runs/"))
    return control is not None and control.current is not None


async def ended_run(runs: Any, name: str) -> run_pb2.Run:
    ended: list[run_pb2.Run] = []

    async def over() -> bool:
        got: run_service_pb2.GetRunResponse = await runs.GetRun(
            run_service_pb2.GetRunRequest(name=name)
        )
        ended[:] = [got.run]
        return got.run.state in ENDED_STATES

    await eventually(over, within=60)
    return ended[0]


ENDED_STATES = (run_pb2.RUN_STATE_SUCCEEDED, run_pb2.RUN_STATE_FAILED, run_pb2.RUN_STATE_CANCELLED)


async def test_an_idle_browser_session_closes_its_browser(
    browser_case: BrowserCaseFactory, shop: CartShop
) -> None:
    port = shop.url.rsplit(":", 1)[1]
    case = await browser_case("session_cart.yaml", network_allow=(f"127.0.0.1:{port}",))
    session = await create(case.harness.channel, start_url=f"{shop.url}/live", idle=2, life=60)
    await eventually(lambda: shop.count("GET", "/ping") > 2)  # its page lives between runs
    events = await session_events(case.harness.channel, session.name)
    assert events[-1].session_ended.reason == session_pb2.SESSION_END_REASON_IDLE
    await no_more_pings(case.harness.channel, shop)
    refused = await refused_start(case.harness.runs.Automate(in_session(session.name, "Go on")))
    assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_IDLE")
    with pytest.raises(grpc.aio.AioRpcError) as blocked:  # the guard refuses the start page
        await create(case.harness.channel, start_url="http://127.0.0.1:9/")
    error = rich_error(blocked.value)
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "START_URL_FAILED")


async def test_the_maximum_life_cancels_the_active_run_and_a_second_start_is_busy(
    browser_case: BrowserCaseFactory, shop: CartShop
) -> None:
    port = shop.url.rsplit(":", 1)[1]
    case = await browser_case("session_hold.yaml", network_allow=(f"127.0.0.1:{port}",))
    runs = case.harness.runs
    # a life long enough for the busy start to come before it ends on a loaded machine
    session = await create(case.harness.channel, start_url=f"{shop.url}/live", idle=15, life=15)
    holding = runs.Automate(in_session(session.name, "Wait for ever"))
    first = await holding.read()
    busy = await refused_start(runs.Automate(in_session(session.name, "Another task")))
    assert (busy.code, busy.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SESSION_BUSY")
    rest = [first.event, *await read_rest(holding)]
    complete = rest[-2].automate.complete
    assert not complete.success and complete.error.code == ae.AUTOMATE_ERROR_CODE_TASK_ABORTED
    assert "maximum life" in complete.error.message
    events = await session_events(case.harness.channel, session.name)
    assert events[-1].session_ended.reason == session_pb2.SESSION_END_REASON_EXPIRED
    await no_more_pings(case.harness.channel, shop)


async def no_more_pings(channel: grpc.aio.Channel, shop: CartShop) -> None:
    """The ended session's page (its browser context closed) pings no more: a witness session's
    page in the same Chromium pings five times meanwhile. The browser's own timers are the
    clock, which a loaded machine slows for both pages alike, where a fixed wait would not."""
    witness = await create(channel, start_url=f"{shop.url}/live?as=witness", idle=60, life=60)
    await eventually(lambda: shop.count("GET", "/ping?as=witness") > 0, within=30)
    stopped = shop.count("GET", "/ping")  # a ping sent before the close has arrived by now
    seen = shop.count("GET", "/ping?as=witness")
    await eventually(lambda: shop.count("GET", "/ping?as=witness") >= seen + 5, within=30)
    assert shop.count("GET", "/ping") == stopped
    await sessions_stub(channel).EndSession(
        session_service_pb2.EndSessionRequest(name=witness.name)
    )


async def refused_start(call: Any) -> RichError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call.read()
    return rich_error(caught.value)
