"""A person's input, sent to the run's current tab as DevTools input events (`Input.*`): the
same events a real mouse and keyboard make, so the page sees trusted clicks and keystrokes.
Navigation goes through Playwright (the run's network guard and domain rules apply)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from typing import Any

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from outrider.server.browser.session import BrowserSession
from outrider.server.core.errors import FailedPrecondition
from outrider.v1 import browser_control_service_pb2 as bcs

_MOUSE_TYPES = {
    bcs.MOUSE_ACTION_PRESS: "mousePressed",
    bcs.MOUSE_ACTION_RELEASE: "mouseReleased",
    bcs.MOUSE_ACTION_MOVE: "mouseMoved",
}
_BUTTONS = {
    bcs.MOUSE_BUTTON_UNSPECIFIED: ("none", 0),
    bcs.MOUSE_BUTTON_LEFT: ("left", 1),
    bcs.MOUSE_BUTTON_RIGHT: ("right", 2),
    bcs.MOUSE_BUTTON_MIDDLE: ("middle", 4),
}
# Keys that type no character: their Windows virtual key codes (what the page reads as keyCode);
# Enter types a carriage return, as a keyboard's does.
_NAMED_KEYS = {
    "Backspace": 8, "Tab": 9, "Enter": 13, "Shift": 16, "Control": 17, "Alt": 18,
    "CapsLock": 20, "Escape": 27, "PageUp": 33, "PageDown": 34, "End": 35, "Home": 36,
    "ArrowLeft": 37, "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40, "Delete": 46, "Meta": 91,
}  # fmt: skip
_TYPES_TEXT = {"Enter": "\r"}
_COMMAND_MODIFIERS = 0b0111  # Alt, Control or Meta held: a shortcut, not a character


class InputForwarder:
    def __init__(self, session: BrowserSession) -> None:
        self._session = session
        self._page: Page | None = None
        self._cdp: CDPSession | None = None
        self._buttons = 0  # buttons held down, as DevTools' bit mask
        self.last_sent = 0.0  # monotonic time of the last input sent, 0 when settled since

    async def send(self, events: Sequence[bcs.InputEvent]) -> None:
        self.last_sent = time.monotonic()
        try:
            for event in events:
                await self._one(event)
        except PlaywrightError as error:
            first = (error.message or str(error)).splitlines()[0]
            raise FailedPrecondition(
                f"the input did not reach the page: {first}", "INPUT_FAILED"
            ) from None

    async def _one(self, event: bcs.InputEvent) -> None:
        arm = event.WhichOneof("event")
        if arm == "navigate":
            await _navigate(self._session.page, event.navigate)
        elif arm == "text":
            await self._send("Input.insertText", {"text": event.text.text})
        elif arm == "key":
            await self._send("Input.dispatchKeyEvent", _key_event(event.key))
        elif arm == "wheel":
            await self._send("Input.dispatchMouseEvent", _wheel_event(event.wheel))
        elif arm == "mouse":
            await self._send("Input.dispatchMouseEvent", self._mouse_event(event.mouse))

    async def _send(self, method: str, params: dict[str, Any]) -> None:
        page = self._session.page
        if self._cdp is None or self._page is not page:
            await self.close()
            self._cdp, self._page = await page.context.new_cdp_session(page), page
        await self._cdp.send(method, params)

    def _mouse_event(self, mouse: bcs.MouseInput) -> dict[str, Any]:
        button, bit = _BUTTONS[mouse.button]
        if mouse.action == bcs.MOUSE_ACTION_PRESS:
            self._buttons |= bit
        elif mouse.action == bcs.MOUSE_ACTION_RELEASE:
            self._buttons &= ~bit
        clicks = mouse.click_count or (0 if mouse.action == bcs.MOUSE_ACTION_MOVE else 1)
        return {
            "type": _MOUSE_TYPES[mouse.action],
            "x": mouse.x,
            "y": mouse.y,
            "button": button,
            "buttons": self._buttons,
            "clickCount": clicks,
            "modifiers": mouse.modifiers,
        }

    async def close(self) -> None:
        cdp, self._cdp, self._page = self._cdp, None, None
        if cdp is not None:
            with contextlib.suppress(PlaywrightError):
                await cdp.detach()


def _key_event(key: bcs.KeyInput) -> dict[str, Any]:
    event: dict[str, Any] = {
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": _virtual_key_code(key.key),
        "modifiers": key.modifiers,
    }
    if key.action == bcs.KEY_ACTION_UP:
        return event | {"type": "keyUp"}
    text = key.key if len(key.key) == 1 else _TYPES_TEXT.get(key.key, "")
    if text and not key.modifiers & _COMMAND_MODIFIERS:
        return event | {"type": "keyDown", "text": text, "unmodifiedText": text}
    return event | {"type": "rawKeyDown"}


def _virtual_key_code(key: str) -> int:
    if key in _NAMED_KEYS:
        return _NAMED_KEYS[key]
    if len(key) == 1 and ((key.isascii() and key.isalnum()) or key == " "):
        return ord(key.upper())
    return 0


def _wheel_event(wheel: bcs.WheelInput) -> dict[str, Any]:
    return {
        "type": "mouseWheel",
        "x": wheel.x,
        "y": wheel.y,
        "deltaX": wheel.delta_x,
        "deltaY": wheel.delta_y,
        "modifiers": wheel.modifiers,
    }


async def _navigate(page: Page, navigate: bcs.NavigateInput) -> None:
    """Starts the navigation and returns once the new page is committed, not loaded."""
    if navigate.action == bcs.NAVIGATE_ACTION_GOTO:
        await page.goto(navigate.url, wait_until="commit")
    elif navigate.action == bcs.NAVIGATE_ACTION_BACK:
        await page.go_back(wait_until="commit")
    elif navigate.action == bcs.NAVIGATE_ACTION_FORWARD:
        await page.go_forward(wait_until="commit")
    else:
        await page.reload(wait_until="commit")
