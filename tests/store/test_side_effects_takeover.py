"""Issue 23, item 2: side effects never repeat without consent. A browser run on replica A sends
an order form; A is SIGKILLed (with its Chromium) while the shop still holds that POST. Replica
B takes the run over and, as the run's option says, ends it (RESUME_UNSAFE), asks first, or
repeats it; the shop counts the POSTs it received. A run that did nothing but read resumes as
before. Real replicas, real Chromium, a model scripted at the wire."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest
import tabstack
from tabstack.types import AutomateEvent

from outrider.server.core.storage import ACTIVE_STATES
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import (
    interaction_service_pb2_grpc,
    params_pb2,
    run_event_pb2,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
)
from tests.browser.wire_model import WireModel, act, plan, verdict, wire_model
from tests.support.harness import ServerProcess, eventually
from tests.support.postgres import PostgresServer
from tests.support.requests import names, read_until

ORDER_PAGE = (
    "<!doctype html><title>Tea shop</title><h1>Order tea</h1>"
    '<form method="post" action="/order"><input type="hidden" name="item" value="sencha">'
    '<button>Place order</button></form><p><a href="/menu">Menu</a></p>'
)
PLACED = "<!doctype html><title>Order placed</title><h1>Order placed</h1>"
MENU = "<!doctype html><title>Menu</title><h1>Menu</h1><p>Sencha, Gyokuro</p>"
ANSWER = "The order was placed."


@dataclass
class Shop:
    """The shop's server side: what it received, and the one request it holds unanswered
    (`hold`: method and path) until the test lets go, so the executor dies while it waits."""

    url: str = ""
    posts: int = 0
    hold: tuple[str, str] = ("", "")
    held: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def arm(self, method: str, path: str) -> None:
        self.hold, self.posts = (method, path), 0
        self.held.clear()
        self.release.clear()

    def wait_if_held(self, method: str, path: str) -> None:
        if (method, path) == self.hold:
            self.hold = ("", "")  # only the first such request
            self.held.set()
            self.release.wait(60)


def shop_handler(shop: Shop) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            shop.wait_if_held("GET", self.path)
            self._send(MENU if self.path == "/menu" else ORDER_PAGE)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            shop.posts += 1  # counted on arrival: a request the client never saw answered too
            shop.wait_if_held("POST", self.path)
            self._send(PLACED)

        def _send(self, html: str) -> None:
            body = html.encode()
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass  # the browser that asked was killed meanwhile

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture(scope="module")
def shop() -> Iterator[Shop]:
    found = Shop()
    server = ThreadingHTTPServer(("127.0.0.1", 0), shop_handler(found))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    found.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield found
    found.release.set()
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def model() -> Iterator[WireModel]:
    with wire_model([]) as scripted:
        yield scripted


@dataclass
class Replicas:
    env: dict[str, str]
    root: Path
    survivor: ServerProcess
    started: list[ServerProcess] = field(default_factory=list)

    def start(self) -> ServerProcess:
        replica = ServerProcess(self.root / f"r{len(self.started)}", production=True, **self.env)
        self.started.append(replica)
        replica.start()
        replica.drain()
        return replica


@pytest.fixture(scope="module")
def replicas(postgres_server: PostgresServer, shop: Shop, model: WireModel) -> Iterator[Replicas]:
    """B, the survivor, lives for the module; each test starts its own executor A."""
    url = postgres_server.create_database()
    root = Path(tempfile.mkdtemp(prefix="outrider-side-effects-"))
    env = {
        "OUTRIDER_DATABASE_URL": url,
        "OUTRIDER_FAILOVER_INTERVAL": "0.5",
        "OUTRIDER_CLUSTER_SECRET": "side-effects-secret-" + "s" * 20,
        "OUTRIDER_MODEL": model.spec,
        "OUTRIDER_NETWORK_ALLOW": shop.url.removeprefix("http://"),
    }
    survivor = ServerProcess(root / "survivor", rest=True, production=True, **env)
    found = Replicas(env, root, survivor, [survivor])
    survivor.start()
    survivor.drain()
    yield found
    for replica in found.started:
        replica.close()
    postgres_server.drop_database(url)
    shutil.rmtree(root, ignore_errors=True)


@dataclass
class Lost:
    """A run whose executor was killed, watched on the survivor from its first event."""

    name: str
    seen: list[run_event_pb2.RunEvent]
    watcher: AsyncIterator[run_service_pb2.StreamRunEventsResponse]
    runs: run_service_pb2_grpc.RunServiceStub
    interactions: interaction_service_pb2_grpc.InteractionServiceStub


@pytest.fixture
async def channels(replicas: Replicas) -> AsyncIterator[list[grpc.aio.Channel]]:
    opened: list[grpc.aio.Channel] = []
    yield opened
    for channel in opened:
        await channel.close()


async def lose_run_after(
    replicas: Replicas,
    channels: list[grpc.aio.Channel],
    shop: Shop,
    held: tuple[str, str],
    options: params_pb2.RunOptions,
    interactive: bool = False,
) -> Lost:
    """Starts the order task on a new executor A, watched on B; SIGKILLs A (and its Chromium)
    while the shop holds the `held` request (method, path) unanswered."""
    executor = replicas.start()
    channels.extend(
        grpc.aio.insecure_channel(f"127.0.0.1:{p.port}") for p in (executor, replicas.survivor)
    )
    on_a = run_service_pb2_grpc.RunServiceStub(channels[-2])
    on_b = run_service_pb2_grpc.RunServiceStub(channels[-1])
    shop.arm(*held)
    params = params_pb2.AutomateParams(
        task="Order one sencha",
        url=f"{shop.url}/order",
        interactive=interactive,
        trusted_hostnames=["127.0.0.1"],  # the firewall lets the order form go
    )
    created = await on_a.CreateRun(
        run_service_pb2.CreateRunRequest(automate=params, options=options)
    )
    name = created.run.name
    watcher = on_b.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name))
    if not await asyncio.to_thread(shop.held.wait, 60):
        raise AssertionError(f"the shop never got the request: {''.join(executor.tail)}")
    executor.kill_group()
    shop.release.set()
    stub = interaction_service_pb2_grpc.InteractionServiceStub(channels[-1])
    return Lost(name, [], watcher, on_b, stub)


def submit_turns() -> list[Any]:
    return [plan(), act("click", ref='{{ref: button "Place order"}}')]


async def outcome(lost: Lost) -> run_pb2.Run:
    """The run once it ended (its `done` event comes before the agent let go of its browser)."""
    lost.seen += await asyncio.wait_for(read_until(lost.watcher, "done"), 60)
    assert [e.sequence for e in lost.seen] == list(range(1, len(lost.seen) + 1))
    ended: list[run_pb2.Run] = []

    async def over() -> bool:
        request = run_service_pb2.GetRunRequest(name=lost.name)
        ended[:] = [(await lost.runs.GetRun(request)).run]
        return ended[0].state not in ACTIVE_STATES

    await eventually(over, within=30)
    return ended[0]


def side_effects(events: list[run_event_pb2.RunEvent]) -> list[run_event_pb2.SideEffect]:
    return [e.side_effect for e in events if e.HasField("side_effect")]


async def test_a_run_lost_right_after_a_submit_ends_without_sending_it_again(
    replicas: Replicas, channels: list[grpc.aio.Channel], shop: Shop, model: WireModel
) -> None:
    model.then(submit_turns())
    end = params_pb2.RunOptions()  # not interactive: END by default
    lost = await lose_run_after(replicas, channels, shop, ("POST", "/order"), end)
    asked = len(model.provider.bodies)
    run = await outcome(lost)
    assert run.state == run_pb2.RUN_STATE_FAILED
    assert run.outcome.error_code == "RESUME_UNSAFE"
    assert 'submitted the form "Order tea" (POST ' in run.outcome.error_message
    complete = next(e.automate.complete for e in lost.seen if event_is(e, "complete"))
    assert complete.error.message.startswith("RESUME_UNSAFE")
    [submit] = side_effects(lost.seen)  # journaled (and streamed) before the POST left
    assert submit.kind == run_event_pb2.SIDE_EFFECT_KIND_FORM_SUBMIT
    assert submit.method == "POST" and submit.url == f"{shop.url}/order"
    assert "run_resumed" not in names(lost.seen)  # not started again: ended
    assert len(model.provider.bodies) == asked  # the survivor never started the task again
    assert shop.posts == 1


async def test_an_interactive_run_asks_first_and_ends_when_refused(
    replicas: Replicas, channels: list[grpc.aio.Channel], shop: Shop, model: WireModel
) -> None:
    model.then(submit_turns())
    lost = await lose_run_after(
        replicas, channels, shop, ("POST", "/order"), params_pb2.RunOptions(), interactive=True
    )
    asked = await pending_approval(lost)
    assert asked.approval.action == "resume"
    listed = asked.approval.details.fields["side_effects"].list_value.values
    assert len(listed) == 1 and 'submitted the form "Order tea" (POST ' in listed[0].string_value
    await lost.interactions.DecideApproval(
        isv.DecideApprovalRequest(
            name=asked.name, decision=run_event_pb2.APPROVAL_DECISION_REJECT, reason="no"
        )
    )
    run = await outcome(lost)
    assert run.outcome.error_code == "RESUME_UNSAFE"
    assert "the caller did not approve resuming it (no)" in run.outcome.error_message
    assert shop.posts == 1


async def test_repeat_sends_it_again_and_tells_the_model_what_was_done(
    replicas: Replicas, channels: list[grpc.aio.Channel], shop: Shop, model: WireModel
) -> None:
    model.then(submit_turns())
    model.then(
        [
            plan(),
            act(
                "click",
                expect=["Before the interruption it had already done 1 thing"],
                ref='{{ref: button "Place order"}}',
            ),
            act("done", expect=["Order placed"], answer=ANSWER),
            verdict(),
        ]
    )
    repeat = params_pb2.RunOptions(
        resume_after_side_effects=params_pb2.RESUME_AFTER_SIDE_EFFECTS_REPEAT
    )
    lost = await lose_run_after(replicas, channels, shop, ("POST", "/order"), repeat)
    run = await outcome(lost)
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED, run.outcome
    assert shop.posts == 2  # asked for: the submit was repeated
    attempts = [(e.number, e.attempt) for e in side_effects(lost.seen)]
    assert attempts == [(1, 0), (2, 1)]
    assert not model.problems, model.problems
    await a_rest_watcher_learns_it_was_resumed(replicas.survivor, lost, shop)


async def a_rest_watcher_learns_it_was_resumed(
    survivor: ServerProcess, lost: Lost, shop: Shop
) -> None:
    """Issue 34, item 4: a watcher on REST who did not opt in to our own events (no
    `run_resumed`, no `side_effect`), reading with the official tabstack SDK, learns from
    `complete` that the task ran again and what it sent before and after the loss; its stats
    count both attempts."""
    sdk = tabstack.AsyncTabstack(
        api_key="unused", base_url=f"http://127.0.0.1:{survivor.rest_port}/v1"
    )
    async with sdk:
        stream = await sdk.get(
            f"/runs/{lost.name.removeprefix('runs/')}/events",
            cast_to=AutomateEvent,
            # as the SDK's own automate call reads its stream: the SSE event name, then its data
            options={"headers": {"Accept": "text/event-stream"}, "synthesize_event_and_data": True},
            stream=True,
            stream_cls=tabstack.AsyncStream[AutomateEvent],
        )
        events = [event async for event in stream]
    seen = [event.event for event in events]
    assert "run_resumed" not in seen and "side_effect" not in seen
    complete = next(event for event in events if event.event == "complete")
    assert complete.data.success is True
    message = (complete.data.model_extra or {})["message"]
    assert message.startswith("resumed after a replica loss: the task ran 2 times")
    order = f'submitted the form "Order tea" (POST {shop.url}/order)'
    before, after = message.split("after it:")
    assert order in before and order in after  # sent before the loss, and again after it
    on_grpc = next(e.automate.complete for e in lost.seen if event_is(e, "complete"))
    assert [a.attempt for a in on_grpc.stats.attempts] == [1, 2]
    assert on_grpc.stats.iterations == sum(a.iterations for a in on_grpc.stats.attempts)
    assert on_grpc.stats.attempts[0].iterations >= 1  # the lost attempt's steps count too
    assert complete.data.stats.iterations == on_grpc.stats.iterations
    assert "attempts" not in (complete.data.stats.model_extra or {})  # opt-in only


async def test_a_run_that_only_read_resumes_whatever_its_option(
    replicas: Replicas, channels: list[grpc.aio.Channel], shop: Shop, model: WireModel
) -> None:
    model.then([plan(), act("click", ref='{{ref: link "Menu"}}')])
    model.then(
        [
            plan(),
            act("click", ref='{{ref: link "Menu"}}'),
            act("done", expect=["Gyokuro"], answer="Sencha and Gyokuro"),
            verdict(),
        ]
    )
    end = params_pb2.RunOptions(resume_after_side_effects=params_pb2.RESUME_AFTER_SIDE_EFFECTS_END)
    lost = await lose_run_after(replicas, channels, shop, ("GET", "/menu"), end)
    run = await outcome(lost)
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED, run.outcome
    assert side_effects(lost.seen) == [] and shop.posts == 0
    assert names(lost.seen).count("task:setup") == 2
    assert not model.problems, model.problems


def event_is(event: run_event_pb2.RunEvent, name: str) -> bool:
    return names([event]) == [name]


async def pending_approval(lost: Lost) -> ip.Interaction:
    found: list[ip.Interaction] = []

    async def listed() -> bool:
        response = await lost.interactions.ListInteractions(
            isv.ListInteractionsRequest(run=lost.name)
        )
        found[:] = [i for i in response.interactions if i.kind == ip.INTERACTION_KIND_APPROVAL]
        return bool(found)

    await eventually(listed, within=30)
    return found[0]
