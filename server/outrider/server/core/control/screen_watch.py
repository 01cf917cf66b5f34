"""One viewer of a run's screen: the newest frame (never a backlog: a slow viewer skips frames
and stays current) and changes of who has control, which are never skipped."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Protocol

from outrider.v1 import browser_control_service_pb2 as bcs

Unwatch = Callable[[], None]


class LiveBrowser(Protocol):
    """What a browser run offers the people watching and driving it (browser/live.py)."""

    def watch(self, width: int, height: int, deliver: Callable[[bcs.ScreenFrame], None]) -> Unwatch:
        """Calls `deliver` with each new frame of the current tab, scaled to fit width by height,
        until the returned function is called. Frames are made only while someone watches."""

    async def forward(self, events: Sequence[bcs.InputEvent]) -> None:
        """Sends the events to the current tab, in order (raises OutriderError when it cannot)."""

    def where(self) -> str:
        """The URL of the current tab."""


class ScreenWatch:
    def __init__(self, width: int, height: int, viewer: str = "") -> None:
        self.width = width
        self.height = height
        self.viewer = viewer  # the principal watching ("" when unknown)
        self._frame: bcs.ScreenFrame | None = None
        self._statuses: list[bcs.ControlStatus] = []
        self._ended = False
        self._wake = asyncio.Event()
        self.unwatch: Unwatch | None = None  # while a browser delivers frames to it

    def deliver(self, frame: bcs.ScreenFrame) -> None:
        self._frame = frame
        self._wake.set()

    def control(self, status: bcs.ControlStatus) -> None:
        self._statuses.append(status)
        self._wake.set()

    def end(self) -> None:
        self._ended = True
        self._wake.set()

    async def next(self) -> bcs.WatchScreenResponse | None:
        """The next message for the viewer; None once the run has ended."""
        while True:
            if self._statuses:
                return bcs.WatchScreenResponse(control=self._statuses.pop(0))
            if self._frame is not None:
                frame, self._frame = self._frame, None
                return bcs.WatchScreenResponse(frame=frame)
            if self._ended:
                return None
            self._wake.clear()
            await self._wake.wait()

    def detach(self) -> None:
        """Stops the frames of the browser it watches (if any)."""
        unwatch, self.unwatch = self.unwatch, None
        if unwatch is not None:
            unwatch()
