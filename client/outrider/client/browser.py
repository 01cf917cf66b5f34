"""A browser run's live screen and takeovers (BrowserControlService), as `AsyncClient.browser`:

async with AsyncClient("localhost:50051", api_key=key) as client:
    taken = await client.browser.take_over(run)
    await client.browser.click(run, 100, 225)
    await client.browser.type_text(run, "482913")
    await client.browser.press(run, "Enter")
    await client.browser.hand_back(run, takeover=taken.name, note="Code entered.")
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import timedelta

import grpc
from google.protobuf import timestamp_pb2

from outrider.client._grpc import UnaryCalls, translate
from outrider.client.requests import interaction_name, run_name
from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import browser_control_service_pb2_grpc as bcg
from outrider.v1 import interaction_pb2

ScreenMessage = bcs.ScreenFrame | bcs.ControlStatus


class AsyncBrowserControl(UnaryCalls):
    def __init__(
        self,
        channel: grpc.aio.Channel,
        metadata: Sequence[tuple[str, str]],
        deadline: timedelta | None,
    ) -> None:
        super().__init__(metadata, deadline)
        self._stub = bcg.BrowserControlServiceStub(channel)  # type: ignore[no-untyped-call]

    async def watch(
        self, run: str, *, max_width: int = 0, max_height: int = 0
    ) -> AsyncIterator[ScreenMessage]:
        """Frames of the run's screen and changes of who has control, until the run ends."""
        request = bcs.WatchScreenRequest(
            run=run_name(run), max_width=max_width, max_height=max_height
        )
        call = self._stub.WatchScreen(request, metadata=self._metadata)
        try:
            async for message in call:
                yield message.frame if message.HasField("frame") else message.control
        except grpc.RpcError as error:
            raise translate(error) from None
        finally:
            call.cancel()

    async def take_over(self, run: str, *, force: bool = False) -> interaction_pb2.Interaction:
        """Pauses the agent and gives the caller the browser (force: from whoever has it)."""
        request = bcs.TakeOverRequest(run=run_name(run), force=force)
        response = await self._unary(self._stub.TakeOver, request)
        return response.takeover  # type: ignore[no-any-return]

    async def send(self, run: str, events: Sequence[bcs.InputEvent]) -> timestamp_pb2.Timestamp:
        """Input for the run's current tab; returns when the caller's control now expires."""
        request = bcs.ForwardInputRequest(run=run_name(run), events=events)
        response = await self._unary(self._stub.ForwardInput, request)
        return response.expire_time  # type: ignore[no-any-return]

    async def click(self, run: str, x: float, y: float) -> timestamp_pb2.Timestamp:
        """A left click at (x, y), in the viewport's CSS pixels."""
        return await self.send(run, click_events(x, y))

    async def type_text(self, run: str, text: str) -> timestamp_pb2.Timestamp:
        """Each character as a key going down and up."""
        return await self.send(run, [event for char in text for event in key_events(char)])

    async def press(self, run: str, key: str) -> timestamp_pb2.Timestamp:
        """A key by its KeyboardEvent.key name: "Enter", "Tab", "Escape", ..."""
        return await self.send(run, key_events(key))

    async def hand_back(
        self, run: str, *, takeover: str = "", note: str = ""
    ) -> interaction_pb2.Interaction:
        """Gives the browser back to the agent, with a note for it."""
        named = interaction_name(takeover) if takeover else ""
        request = bcs.HandBackRequest(run=run_name(run), takeover=named, note=note)
        response = await self._unary(self._stub.HandBack, request)
        return response.takeover  # type: ignore[no-any-return]

    async def decline(
        self, run: str, *, takeover: str = "", reason: str = ""
    ) -> interaction_pb2.Interaction:
        """Declines the agent's request for a person."""
        named = interaction_name(takeover) if takeover else ""
        request = bcs.DeclineTakeoverRequest(run=run_name(run), takeover=named, reason=reason)
        response = await self._unary(self._stub.DeclineTakeover, request)
        return response.takeover  # type: ignore[no-any-return]


def click_events(x: float, y: float) -> list[bcs.InputEvent]:
    """Move, press and release of the left button at (x, y)."""
    return [
        bcs.InputEvent(
            mouse=bcs.MouseInput(
                action=action, x=x, y=y, button=bcs.MOUSE_BUTTON_LEFT, click_count=1
            )
        )
        for action in (bcs.MOUSE_ACTION_MOVE, bcs.MOUSE_ACTION_PRESS, bcs.MOUSE_ACTION_RELEASE)
    ]


def key_events(key: str) -> list[bcs.InputEvent]:
    """The key going down, then up."""
    return [
        bcs.InputEvent(key=bcs.KeyInput(action=action, key=key))
        for action in (bcs.KEY_ACTION_DOWN, bcs.KEY_ACTION_UP)
    ]
