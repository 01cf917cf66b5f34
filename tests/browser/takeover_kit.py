"""What the takeover tests share: a person at a screen, over gRPC (watching frames, taking over,
clicking and typing, handing back), a run followed event by event, and a server with the
production browser agent and the takeover scenario (tests/fixtures/scenarios/browser/
takeover.yaml)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import struct
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from outrider.server.core.events.names import event_name
from outrider.server.settings.browser import BrowserSettings
from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import browser_control_service_pb2_grpc as bcg
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import params_pb2, run_event_pb2
from outrider.v1 import run_service_pb2 as rs
from outrider.v1.run_service_pb2_grpc import RunServiceStub
from tests.support.harness import REPO_ROOT, Harness, start_harness, stop_harness

SCENARIO = REPO_ROOT / "tests" / "fixtures" / "scenarios" / "browser" / "takeover.yaml"
CODE = "482913"  # the second-factor code only "the person" knows
# Places on tests/fixtures/sites/takeover/verify.html (viewport CSS pixels)
CODE_FIELD = (100.0, 225.0)
TROUBLE_LINK = (100.0, 325.0)
NEW_TAB_LINK = (100.0, 405.0)

Metadata = tuple[tuple[str, str], ...]


@dataclass
class TakeoverServer:
    harness: Harness
    sites: str
    transcript: Path
    hold: Path  # the folder of the scenario's wait_for files

    def prompts_of(self, task: str) -> list[dict[str, Any]]:
        """Every request the scripted model got for runs of `task`."""
        lines = self.transcript.read_text().splitlines() if self.transcript.exists() else []
        entries = [json.loads(line) for line in lines]
        return [e for e in entries if any(task in m for m in e["messages"])]


def scenario_file(folder: Path) -> tuple[Path, Path, Path]:
    """The takeover scenario written into `folder`: (its path, its transcript, its hold folder)."""
    hold = folder / "hold"
    hold.mkdir(parents=True)
    transcript = folder / "transcript.jsonl"
    script = folder / "scenario.yaml"
    text = SCENARIO.read_text().replace("HOLD", str(hold))
    script.write_text(text + f"\ntranscript: {transcript}\n")
    return script, transcript, hold


async def start_takeover_server(folder: Path, sites: str, **settings: Any) -> TakeoverServer:
    script, transcript, hold = scenario_file(folder)
    port = sites.rsplit(":", 1)[1]
    harness = await start_harness(
        folder / "data",
        production=True,
        model=f"scripted:{script}",
        network_allow=f"127.0.0.1:{port}",
        browser=BrowserSettings(),
        **settings,
    )
    return TakeoverServer(harness, sites, transcript, hold)


async def stop_takeover_server(server: TakeoverServer) -> None:
    await stop_harness(server.harness)


class Followed:
    """A run's events, collected in the background; `until` waits for one by name."""

    def __init__(
        self, server: TakeoverServer | RunServiceStub, run: str, metadata: Metadata = ()
    ) -> None:
        self.events: list[run_event_pb2.RunEvent] = []
        self._changed = asyncio.Event()
        request = rs.StreamRunEventsRequest(name=run)
        runs = server.harness.runs if isinstance(server, TakeoverServer) else server
        self._stream = runs.StreamRunEvents(request, metadata=metadata)
        self._task = asyncio.create_task(self._collect())

    async def _collect(self) -> None:
        async for response in self._stream:
            if response.HasField("event"):
                self.events.append(response.event)
                self._changed.set()
        self._changed.set()

    async def until(self, name: str, within: float = 60.0) -> run_event_pb2.RunEvent:
        async with asyncio.timeout(within):
            while True:
                found = [e for e in self.events if event_name(e) == name]
                if found:
                    return found[-1]
                if self._task.done():
                    raise AssertionError(f"the run ended without {name}: {self.names}")
                self._changed.clear()
                await self._changed.wait()

    async def ended(self, within: float = 60.0) -> list[run_event_pb2.RunEvent]:
        await asyncio.wait_for(self._task, within)
        return self.events

    @property
    def names(self) -> list[str]:
        return [event_name(e) for e in self.events]

    def between(self, first: str, last: str) -> list[str]:
        names = self.names
        return names[names.index(first) + 1 : names.index(last)]


@dataclass
class Screen:
    """A viewer of a run's screen: frames and control statuses as they come."""

    frames: list[bcs.ScreenFrame] = field(default_factory=list)
    statuses: list[bcs.ControlStatus] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    over: asyncio.Event = field(default_factory=asyncio.Event)  # the stream ended

    async def showing(self, text: str, within: float = 20.0) -> bcs.ScreenFrame:
        """The first frame whose URL has `text`."""
        async with asyncio.timeout(within):
            while True:
                for frame in self.frames:
                    if text in frame.url:
                        return frame
                self.changed.clear()
                await self.changed.wait()

    async def ended(self, within: float = 20.0) -> None:
        await asyncio.wait_for(self.over.wait(), within)

    def states(self) -> list[int]:
        return [s.state for s in self.statuses]


@contextlib.asynccontextmanager
async def watching(person: Person, width: int = 0, height: int = 0) -> AsyncIterator[Screen]:
    screen = Screen()
    request = bcs.WatchScreenRequest(run=person.run, max_width=width, max_height=height)
    call = person.stub.WatchScreen(request, metadata=person.metadata)

    async def read() -> None:
        async for message in call:
            if message.HasField("frame"):
                screen.frames.append(message.frame)
            else:
                screen.statuses.append(message.control)
            screen.changed.set()
        screen.over.set()

    task = asyncio.create_task(read())
    try:
        yield screen
    finally:
        call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@dataclass
class Person:
    """Someone at a console, driving a run's browser over gRPC."""

    stub: bcg.BrowserControlServiceStub
    run: str
    metadata: Metadata = ()

    async def take_over(self, force: bool = False) -> ip.Interaction:
        request = bcs.TakeOverRequest(run=self.run, force=force)
        return (await self.stub.TakeOver(request, metadata=self.metadata)).takeover

    async def send(self, events: Sequence[bcs.InputEvent]) -> bcs.ForwardInputResponse:
        request = bcs.ForwardInputRequest(run=self.run, events=events)
        response: bcs.ForwardInputResponse = await self.stub.ForwardInput(
            request, metadata=self.metadata
        )
        return response

    async def click(self, at: tuple[float, float]) -> None:
        await self.send(click_events(at))

    async def type(self, text: str) -> None:
        await self.send([e for char in text for e in key_events(char)])

    async def hand_back(self, note: str = "", takeover: str = "") -> ip.Interaction:
        request = bcs.HandBackRequest(run=self.run, note=note, takeover=takeover)
        return (await self.stub.HandBack(request, metadata=self.metadata)).takeover

    async def decline(self, reason: str = "", takeover: str = "") -> ip.Interaction:
        request = bcs.DeclineTakeoverRequest(run=self.run, reason=reason, takeover=takeover)
        return (await self.stub.DeclineTakeover(request, metadata=self.metadata)).takeover


def click_events(at: tuple[float, float]) -> list[bcs.InputEvent]:
    x, y = at
    return [
        bcs.InputEvent(
            mouse=bcs.MouseInput(
                action=action, x=x, y=y, button=bcs.MOUSE_BUTTON_LEFT, click_count=1
            )
        )
        for action in (bcs.MOUSE_ACTION_MOVE, bcs.MOUSE_ACTION_PRESS, bcs.MOUSE_ACTION_RELEASE)
    ]


def key_events(key: str) -> list[bcs.InputEvent]:
    return [
        bcs.InputEvent(key=bcs.KeyInput(action=action, key=key))
        for action in (bcs.KEY_ACTION_DOWN, bcs.KEY_ACTION_UP)
    ]


async def create_run(
    server: TakeoverServer, task: str, interactive: bool = True, metadata: Metadata = ()
) -> str:
    params = params_pb2.AutomateParams(
        task=task, url=f"{server.sites}/takeover/verify.html", interactive=interactive
    )
    created = await server.harness.runs.CreateRun(
        rs.CreateRunRequest(automate=params), metadata=metadata
    )
    return created.run.name


def person(server: TakeoverServer, run: str, metadata: Metadata = ()) -> Person:
    return Person(bcg.BrowserControlServiceStub(server.harness.channel), run, metadata)


def jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a JPEG's start-of-frame header."""
    assert data[:2] == b"\xff\xd8", "not a JPEG"
    at = 2
    while at < len(data):
        marker, length = data[at + 1], struct.unpack(">H", data[at + 2 : at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    raise AssertionError("no start-of-frame marker")
