"""A person's input for a run's browser: checked before it reaches the page, and what they type
kept as a secret of the run (it reaches the page only; the run's redactor scrubs it from every
event, prompt and log line afterwards, as it does a password the caller gave)."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from outrider.server.core.errors import FieldViolation, InvalidArgument
from outrider.server.core.secrets.redaction import Redactor
from outrider.v1 import browser_control_service_pb2 as bcs

MAX_EVENTS = 200
MAX_TEXT = 10_000
MAX_KEY = 32
MAX_URL = 2_048
MAX_POSITION = 10_000.0
MAX_MODIFIERS = 15  # 1 Alt + 2 Control + 4 Meta + 8 Shift


def check_events(events: Sequence[bcs.InputEvent]) -> None:
    """InvalidArgument naming every bad field (events[3].mouse.x, ...)."""
    if not events:
        raise InvalidArgument.single("events", "send at least one input event")
    if len(events) > MAX_EVENTS:
        raise InvalidArgument.single("events", f"at most {MAX_EVENTS} events per call")
    violations = [v for i, e in enumerate(events) for v in _violations(e, f"events[{i}].")]
    if violations:
        raise InvalidArgument(violations)


def _violations(event: bcs.InputEvent, at: str) -> list[FieldViolation]:
    arm = event.WhichOneof("event")
    if arm is None:
        return [FieldViolation(f"{at}event", "set one of mouse, key, wheel, text, navigate")]
    found: list[tuple[str, str]] = []
    if arm == "mouse":
        found = _mouse(event.mouse)
    elif arm == "key":
        found = _key(event.key)
    elif arm == "wheel":
        found = _point(event.wheel.x, event.wheel.y) + _wheel(event.wheel)
    elif arm == "text":
        found = _text(event.text.text)
    else:
        found = _navigate(event.navigate)
    return [FieldViolation(f"{at}{arm}.{name}", why) for name, why in found]


def _mouse(mouse: bcs.MouseInput) -> list[tuple[str, str]]:
    found = _point(mouse.x, mouse.y) + _modifiers(mouse.modifiers)
    if mouse.action not in (
        bcs.MOUSE_ACTION_PRESS,
        bcs.MOUSE_ACTION_RELEASE,
        bcs.MOUSE_ACTION_MOVE,
    ):
        found.append(("action", "must be PRESS, RELEASE or MOVE"))
    pressing = mouse.action in (bcs.MOUSE_ACTION_PRESS, bcs.MOUSE_ACTION_RELEASE)
    if mouse.button not in bcs.MouseButton.values() or (pressing and not mouse.button):
        found.append(("button", "must be LEFT, MIDDLE or RIGHT for a press or release"))
    if not 0 <= mouse.click_count <= 3:
        found.append(("click_count", "must be 0 to 3"))
    return found


def _key(key: bcs.KeyInput) -> list[tuple[str, str]]:
    found = _modifiers(key.modifiers)
    if key.action not in (bcs.KEY_ACTION_DOWN, bcs.KEY_ACTION_UP):
        found.append(("action", "must be DOWN or UP"))
    if not 1 <= len(key.key) <= MAX_KEY:
        found.append(("key", f"must be 1 to {MAX_KEY} characters (KeyboardEvent.key)"))
    if len(key.code) > MAX_KEY:
        found.append(("code", f"must be at most {MAX_KEY} characters (KeyboardEvent.code)"))
    return found


def _wheel(wheel: bcs.WheelInput) -> list[tuple[str, str]]:
    found = _modifiers(wheel.modifiers)
    for name in ("delta_x", "delta_y"):
        if not -MAX_POSITION <= getattr(wheel, name) <= MAX_POSITION:
            found.append((name, f"must be within ±{MAX_POSITION:.0f}"))
    return found


def _text(text: str) -> list[tuple[str, str]]:
    if not 1 <= len(text) <= MAX_TEXT:
        return [("text", f"must be 1 to {MAX_TEXT:,} characters")]
    if "\x00" in text:
        return [("text", "must not contain NUL characters")]
    return []


def _navigate(navigate: bcs.NavigateInput) -> list[tuple[str, str]]:
    if navigate.action not in bcs.NavigateAction.values() or not navigate.action:
        return [("action", "must be GOTO, BACK, FORWARD or RELOAD")]
    if navigate.action != bcs.NAVIGATE_ACTION_GOTO:
        return [("url", "only GOTO takes a URL")] if navigate.url else []
    parts = urlsplit(navigate.url)
    if len(navigate.url) > MAX_URL or parts.scheme not in ("http", "https") or not parts.netloc:
        return [("url", f"must be an http or https URL of at most {MAX_URL:,} characters")]
    return []


def _point(x: float, y: float) -> list[tuple[str, str]]:
    return [
        (name, f"must be 0 to {MAX_POSITION:.0f} (viewport CSS pixels)")
        for name, value in (("x", x), ("y", y))
        if not 0 <= value <= MAX_POSITION
    ]


def _modifiers(modifiers: int) -> list[tuple[str, str]]:
    if 0 <= modifiers <= MAX_MODIFIERS:
        return []
    return [("modifiers", "must be a sum of 1 (Alt), 2 (Control), 4 (Meta), 8 (Shift)")]


class TypedText:
    """Collects what a person types, a word at a time (a run of characters ends at a key that
    types none, a click or a navigation), and tells the run's redactor each one."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._word: list[str] = []

    def record(self, events: Sequence[bcs.InputEvent]) -> None:
        for event in events:
            arm = event.WhichOneof("event")
            if arm == "text":
                self._redactor.add(event.text.text)
                self._word.append(event.text.text)
            elif arm == "key":
                self._key(event.key)
            elif arm in ("navigate", "mouse") and _ends_word(event):
                self.flush()

    def _key(self, key: bcs.KeyInput) -> None:
        if key.action != bcs.KEY_ACTION_DOWN:
            return
        if len(key.key) == 1 and not key.modifiers & 0b0111:  # a character, no Alt/Control/Meta
            self._word.append(key.key)
        elif key.key == "Backspace" and self._word:
            self._word[-1] = self._word[-1][:-1]
        elif key.key not in ("Shift", "CapsLock"):
            self.flush()

    def flush(self) -> None:
        word, self._word = "".join(self._word), []
        if word.strip():
            self._redactor.add(word)


def _ends_word(event: bcs.InputEvent) -> bool:
    return event.WhichOneof("event") == "navigate" or event.mouse.action == bcs.MOUSE_ACTION_PRESS
