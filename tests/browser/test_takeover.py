"""A person takes over a run's browser and hands it back, over gRPC, against the production
agent in Debian Chromium: the agent asks for a person at a second-factor prompt it cannot pass
and goes on after the person typed the code; a person takes over unasked (while the agent acts,
while it decides) and navigates or opens a new tab; a request is declined; a run that cannot
ask is refused; people who do not have control are refused. One server for the module."""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator, Awaitable

import grpc
import pytest
import pytest_asyncio

from outrider.client import AsyncClient, FailedPreconditionError
from outrider.server.browser.live import LiveSession
from outrider.v1 import browser_control_pb2 as bc
from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_service_pb2 as rs
from tests.browser.takeover_kit import (
    CODE,
    CODE_FIELD,
    NEW_TAB_LINK,
    TROUBLE_LINK,
    Followed,
    TakeoverServer,
    create_run,
    jpeg_size,
    key_events,
    person,
    start_takeover_server,
    stop_takeover_server,
    watching,
)
from tests.security.tenants import Keys, two_tenants
from tests.support.harness import RichError, eventually, rich_error
from tests.support.sites import fixture_sites

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    return two_tenants(tmp_path_factory.mktemp("keys"))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server(
    tmp_path_factory: pytest.TempPathFactory, keys: Keys
) -> AsyncIterator[TakeoverServer]:
    with fixture_sites() as sites:
        started = await start_takeover_server(
            tmp_path_factory.mktemp("takeover"), sites, keys_file=keys.file
        )
        yield started
        await stop_takeover_server(started)


def statuses_in_order(seen: list[int], wanted: list[int]) -> bool:
    it = iter(seen)
    return all(state in it for state in wanted)


async def test_a_person_types_the_code_the_agent_asked_for(
    server: TakeoverServer, keys: Keys, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    alice = keys.bearer("alpha-1")
    run = await create_run(server, "Read my account balance.", metadata=alice)
    followed = Followed(server, run, alice)
    at_screen = person(server, run, alice)
    async with watching(at_screen, 640, 400) as screen:
        requested = (await followed.until("takeover_requested")).takeover_requested
        await screen.showing("/takeover/verify.html")
        taken = await at_screen.take_over()
        await at_screen.click(CODE_FIELD)
        await at_screen.type(CODE)
        await at_screen.send(key_events("Enter"))
        await screen.showing("/takeover/verified.html")  # the view follows the navigation
        handed = await at_screen.hand_back("Code entered.", taken.name)
        events = await followed.ended()
    assert requested.origin == bc.TAKEOVER_ORIGIN_AGENT
    assert requested.reason == "A six-digit code was sent to the account holder's phone"
    assert requested.url.endswith("/takeover/verify.html") and not requested.requested_by
    assert (
        taken.kind == ip.INTERACTION_KIND_TAKEOVER and taken.state == ip.INTERACTION_STATE_PENDING
    )
    assert taken.takeover_control.driver == "alpha-1" and taken.takeover.takeover_id in taken.name
    assert handed.state == ip.INTERACTION_STATE_RESOLVED and handed.resolved_by == "alpha-1"
    assert handed.takeover_control.ending == bc.TAKEOVER_ENDING_HANDED_BACK
    assert followed.names[-2:] == ["complete", "done"] and events[-2].automate.complete.success
    assert events[-2].automate.complete.final_answer == "The balance is 1,204.50 EUR."
    # Paused: no model call and no action of the agent's between the request and the hand-back.
    paused = followed.between("takeover_requested", "takeover_ended")
    assert "takeover_started" in paused
    assert not {"ai:generation", "agent:action", "agent:step"} & set(paused), paused
    ended = next(e.takeover_ended for e in events if e.HasField("takeover_ended"))
    assert (ended.ending, ended.note, ended.driver) == (
        bc.TAKEOVER_ENDING_HANDED_BACK, "Code entered.", "alpha-1"
    )  # fmt: skip
    assert ended.input_events == 3 + 2 * len(CODE) + 2
    assert ended.url.endswith("/takeover/verified.html?code=[redacted]")  # typed: a secret
    frame = screen.frames[-1]
    assert (frame.viewport_width, frame.viewport_height) == (1280, 800)
    width, height = jpeg_size(frame.data)
    assert width <= 640 and height <= 400 and frame.media_type == "image/jpeg"
    assert statuses_in_order(
        screen.states(),
        [bcs.CONTROL_STATE_REQUESTED, bcs.CONTROL_STATE_PERSON, bcs.CONTROL_STATE_AGENT],
    ), screen.states()
    after = next(p for p in server.prompts_of("Read my account balance") if any(
        "handed it back" in m for m in p["messages"]))  # fmt: skip
    assert "request_human" in after["tools"]
    told = after["messages"]  # the actor's request after the hand-back
    handed_back = "A person took over the browser and handed it back: Code entered. "
    where = "The browser is now at " + server.sites + "/takeover/verified.html?code=[redacted]"
    assert any(handed_back + where in m for m in told), told  # one full stop after the note
    # and then the page, read again:
    assert any("Signed in" in m for m in told)
    assert_nowhere(CODE, server, [str(e) for e in events], caplog.text)


def assert_nowhere(secret: str, server: TakeoverServer, events: list[str], log: str) -> None:
    """What the person typed reached the page only."""
    assert not any(secret in event for event in events), "an event"
    assert secret not in server.transcript.read_text(), "a model prompt"
    assert secret not in log, "a log line"
    server.harness.server.store.flush()
    for path in server.harness.server.settings.data_dir.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


async def test_the_python_client_takes_over_and_hands_back(
    server: TakeoverServer, keys: Keys
) -> None:
    key = keys.keys["alpha-1"]
    async with AsyncClient(server.harness.target, api_key=key) as client:
        run = await create_run(server, "Read my account balance.", metadata=keys.bearer("alpha-1"))
        followed = Followed(server, run, keys.bearer("alpha-1"))
        await followed.until("takeover_requested")
        screen = client.browser.watch(run, max_width=320)
        first = await anext(aiter(screen))
        assert isinstance(first, bcs.ControlStatus) and first.state == bcs.CONTROL_STATE_REQUESTED
        frame = await anext(aiter(screen))
        assert isinstance(frame, bcs.ScreenFrame) and jpeg_size(frame.data)[0] <= 320
        await screen.aclose()  # type: ignore[attr-defined]
        taken = await client.browser.take_over(run)
        await client.browser.click(run, *CODE_FIELD)
        await client.browser.type_text(run, CODE)
        await client.browser.press(run, "Enter")
        back = await client.browser.hand_back(run, takeover=taken.name, note="Code entered.")
        assert back.takeover_control.ending == bc.TAKEOVER_ENDING_HANDED_BACK
        with pytest.raises(FailedPreconditionError) as late:
            await client.browser.decline(run, takeover=taken.name)
        assert late.value.reason == "TAKEOVER_ENDED"
    events = await followed.ended()
    assert events[-2].automate.complete.final_answer == "The balance is 1,204.50 EUR."


async def test_a_person_takes_over_unasked_once_the_action_in_progress_ends(
    server: TakeoverServer, keys: Keys
) -> None:
    alice = keys.bearer("alpha-1")
    run = await create_run(server, "Check the sign-in page.", metadata=alice)
    followed = Followed(server, run, alice)
    at_screen = person(server, run, alice)
    await followed.until("agent:waiting")  # the agent waits 5 s on the page: an action
    screencast = live_of(server, run).screencast
    assert not screencast.running  # nobody watches: no screencast
    taken = await at_screen.take_over()
    started = await followed.until("takeover_started")
    done_waiting = next(e for e in followed.events if e.HasField("automate") and
                        e.automate.HasField("browser_action_completed"))  # fmt: skip
    assert done_waiting.sequence < started.sequence  # it waited for the action to end
    async with watching(at_screen) as screen:
        await eventually(lambda: screencast.running)
        await at_screen.click(TROUBLE_LINK)
        await screen.showing("/takeover/help.html")
    await eventually(lambda: not screencast.running)  # the last viewer left: it stops
    await at_screen.hand_back(takeover=taken.name)
    events = await followed.ended()
    assert followed.names[-2:] == ["complete", "done"] and events[-2].automate.complete.success
    requested = next(e.takeover_requested for e in events if e.HasField("takeover_requested"))
    assert requested.origin == bc.TAKEOVER_ORIGIN_PERSON and requested.requested_by == "alpha-1"
    paused = followed.between("takeover_started", "takeover_ended")
    assert not {"ai:generation", "agent:action"} & set(paused), paused
    # The person's navigation, as the agent reports it once it has the browser again
    navigated = [e.automate.browser_navigated.url for e in events if e.automate.HasField(
        "browser_navigated")]  # fmt: skip
    assert navigated[-1].endswith("/takeover/help.html")


def live_of(server: TakeoverServer, run: str) -> LiveSession:
    control = server.harness.server.runs.browsers.of(run.removeprefix("runs/"))
    assert control is not None and isinstance(control.live, LiveSession)
    return control.live


async def test_a_decision_made_before_a_takeover_is_not_carried_out_and_a_new_tab_is_followed(
    server: TakeoverServer, keys: Keys
) -> None:
    alice = keys.bearer("alpha-1")
    run = await create_run(server, "Find the help page.", metadata=alice)
    followed = Followed(server, run, alice)
    at_screen = person(server, run, alice)
    # the model decides: it got the actor's request (agent:processing comes just before the
    # request is sent, and a takeover in between is seen before the model is asked)
    await eventually(lambda: [p["role"] for p in server.prompts_of("Find the help page")] == [
        "planner", "actor"])  # fmt: skip
    taken = await at_screen.take_over()
    async with watching(at_screen) as screen:
        await screen.showing("/takeover/verify.html")
        await at_screen.click(NEW_TAB_LINK)
        await screen.showing("/takeover/help.html")  # the view follows the new tab
    await at_screen.hand_back(takeover=taken.name)
    (server.hold / "new-tab").touch()  # the model's reply (a click on Verify) arrives now
    events = await followed.ended()
    complete = events[-2].automate.complete
    assert followed.names[-2:] == ["complete", "done"] and complete.success, complete.error.message
    actions = [e.automate.agent_action.action for e in events if e.automate.HasField(
        "agent_action")]  # fmt: skip
    assert actions == ["done"]  # the click decided before the takeover was never made


async def test_a_person_declines_and_hand_back_still_answers(
    server: TakeoverServer, keys: Keys
) -> None:
    alice = keys.bearer("alpha-1")
    run = await create_run(server, "Pay the invoice.", metadata=alice)
    followed = Followed(server, run, alice)
    at_screen = person(server, run, alice)
    requested = (await followed.until("takeover_requested")).takeover_requested
    declined = await at_screen.decline("not tonight")
    name = f"interactions/{requested.takeover_id}"
    assert declined.name == name and declined.declined and declined.resolved_by == "alpha-1"
    assert declined.takeover_control.ending == bc.TAKEOVER_ENDING_DECLINED
    assert (await at_screen.decline("not tonight", takeover=name)).declined  # a retry
    again = await at_screen.hand_back(takeover=name)  # handing back always answers
    assert again.takeover_control.ending == bc.TAKEOVER_ENDING_DECLINED
    events = await followed.ended()
    ended = next(e.takeover_ended for e in events if e.HasField("takeover_ended"))
    assert (ended.ending, ended.note, ended.driver) == (
        bc.TAKEOVER_ENDING_DECLINED, "not tonight", ""
    )  # fmt: skip
    assert events[-2].automate.complete.error.message.endswith("Nobody can give the code.")


async def test_a_run_that_cannot_ask_has_no_request_human(
    server: TakeoverServer, keys: Keys
) -> None:
    alice = keys.bearer("alpha-1")
    run = await create_run(server, "Read the balance alone.", interactive=False, metadata=alice)
    events = await Followed(server, run, alice).ended()
    assert not any(e.HasField("takeover_requested") for e in events)
    prompts = server.prompts_of("Read the balance alone")
    assert all("request_human" not in p["tools"] for p in prompts if p["role"] == "actor")
    statuses = [e.automate.agent_status.message for e in events if e.automate.HasField(
        "agent_status")]  # fmt: skip
    assert "request_human refused: nobody can answer it" in statuses


async def test_only_the_person_in_control_drives(server: TakeoverServer, keys: Keys) -> None:
    alice, bob, beth = keys.bearer("alpha-1"), keys.bearer("alpha-2"), keys.bearer("beta-1")
    run = await create_run(server, "Wait for a person.", metadata=alice)
    followed = Followed(server, run, alice)
    await followed.until("takeover_requested")
    await person(server, run, alice).take_over()
    refused = await refusal(person(server, run, bob).take_over())
    assert (refused.code, refused.reason) == (
        grpc.StatusCode.FAILED_PRECONDITION, "TAKEOVER_IN_PROGRESS"
    )  # fmt: skip
    assert "alpha-1 has control" in refused.message
    assert (await refusal(person(server, run, bob).click((1, 1)))).reason == "NOT_IN_CONTROL"
    for call in (person(server, run, beth).take_over(), person(server, run, beth).hand_back()):
        assert (await refusal(call)).code == grpc.StatusCode.NOT_FOUND  # another tenant
    forced = await person(server, run, bob).take_over(force=True)
    assert forced.takeover_control.driver == "alpha-2"
    assert (await refusal(person(server, run, alice).click((1, 1)))).reason == "NOT_IN_CONTROL"
    await person(server, run, bob).hand_back()
    events = await followed.ended()
    started = [e.takeover_started for e in events if e.HasField("takeover_started")]
    assert [(s.driver, s.previous_driver) for s in started] == [
        ("alpha-1", ""), ("alpha-2", "alpha-1")
    ]  # fmt: skip
    assert events[-2].automate.complete.final_answer == "A person helped."


async def test_a_run_cancelled_while_a_person_drives_still_takes_the_hand_back(
    server: TakeoverServer, keys: Keys
) -> None:
    alice = keys.bearer("alpha-1")
    run = await create_run(server, "Wait for a person.", metadata=alice)
    followed = Followed(server, run, alice)
    await followed.until("takeover_requested")
    at_screen = person(server, run, alice)
    taken = await at_screen.take_over()
    cancel = rs.CancelRunRequest(name=run, reason="the on-call engineer stops it")
    await server.harness.runs.CancelRun(cancel, metadata=alice)
    events = await followed.ended()
    ended = next(e.takeover_ended for e in events if e.HasField("takeover_ended"))
    assert (ended.ending, ended.driver) == (bc.TAKEOVER_ENDING_RUN_ENDED, "alpha-1")
    assert (await refusal(at_screen.click((1, 1)))).reason == "RUN_ENDED"
    back = await at_screen.hand_back(takeover=taken.name)
    assert back.state == ip.INTERACTION_STATE_CANCELLED
    assert back.takeover_control.ending == bc.TAKEOVER_ENDING_RUN_ENDED


async def test_viewers_leaving_a_busy_stream_leave_no_error(
    server: TakeoverServer, keys: Keys, caplog: pytest.LogCaptureFixture
) -> None:
    """Viewers cancel while frames flow (an animated page: the stream is busy writing), and the
    log stays clean ('Failed to detach context' was logged for such streams)."""
    alice = keys.bearer("alpha-1")
    run = await create_run(server, "Wait for a person.", metadata=alice)
    followed = Followed(server, run, alice)
    await followed.until("takeover_requested")
    at_screen = person(server, run, alice)
    await at_screen.take_over()
    animated = bcs.NavigateInput(
        action=bcs.NAVIGATE_ACTION_GOTO, url=f"{server.sites}/takeover/animated.html"
    )
    await at_screen.send([bcs.InputEvent(navigate=animated)])
    caplog.set_level(logging.WARNING)
    for _ in range(10):
        async with watching(at_screen) as screen:
            await screen.showing("animated.html")
            await eventually(lambda: len(screen.frames) >= 3)
    screencast = live_of(server, run).screencast

    def every_viewer_left() -> bool:  # each stream ended and logged what it would
        gc.collect()  # (one the loop's finalizer closes: once collected)
        return not screencast.running

    await eventually(every_viewer_left)
    await at_screen.hand_back()
    await followed.ended()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def test_bad_input_is_refused_with_its_fields(server: TakeoverServer, keys: Keys) -> None:
    at_screen = person(server, "runs/" + "0" * 24, keys.bearer("alpha-1"))
    bad = [
        bcs.InputEvent(mouse=bcs.MouseInput(action=bcs.MOUSE_ACTION_PRESS, x=-1, y=5)),
        bcs.InputEvent(key=bcs.KeyInput(action=bcs.KEY_ACTION_DOWN, key="")),
        bcs.InputEvent(navigate=bcs.NavigateInput(action=bcs.NAVIGATE_ACTION_GOTO, url="file:///")),
        bcs.InputEvent(),
    ]
    refused = await refusal(at_screen.send(bad))
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT
    assert set(refused.violations) == {
        "events[0].mouse.x",
        "events[0].mouse.button",
        "events[1].key.key",
        "events[2].navigate.url",
        "events[3].event",
    }
    too_many = await refusal(at_screen.send([bcs.InputEvent(text=bcs.TextInput(text="x"))] * 201))
    assert list(too_many.violations) == ["events"]


async def refusal(call: Awaitable[object]) -> RichError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return rich_error(caught.value)
