"""The run page's "now" line: what the run is doing, in one sentence ("Clicking the button
“Sign in” on shop.example", "Waiting for you: a six-digit code was sent", "Queued: 3rd in
line"). The live stream feeds it every event it sends, in order, and shows it again when the
sentence changes; a person waiting for is said first, then a queue, then the newest activity."""

from __future__ import annotations

from typing import Any

from outrider.server.console_edge import event_words
from outrider.server.console_edge.figures import duration, host, ordinal
from outrider.server.console_edge.views import RunView

_ASKING = {
    "interactive:form_data:request": "request_id",
    "interactive:form_data:error": "request_id",
    "approval_requested": "approval_id",
    "takeover_requested": "takeover_id",
}
_ANSWERED = {"input_resolved": "request_id", "approval_resolved": "approval_id"}


class NowLine:
    def __init__(self) -> None:
        self._host = ""
        self._activity = ""
        self._queued = 0
        self._asked: dict[str, str] = {}  # open question id -> what it waits for, in words
        self._driver = ""
        self.shown = ""  # the sentence the page shows

    def feed(self, name: str, data: dict[str, Any], asked: str = "") -> None:
        """One event the page shows, in order; `asked`: a question's words (timeline.asked)."""
        if name == "browser:navigated":
            self._host = host(str(data.get("url", "")))
        if name == "run_queued":
            self._queued = int(data.get("position", 0))
            return
        self._queued = 0
        activity = event_words.doing(name, data, self._host)
        if activity:
            self._activity = activity
        self._questions(name, data, asked)

    def _questions(self, name: str, data: dict[str, Any], asked: str) -> None:
        if name in _ASKING:
            words = _sentence_part(asked) if asked else _waiting_for(name, data)
            self._asked[str(data.get(_ASKING[name], ""))] = words
        elif name in _ANSWERED:
            self._asked.pop(str(data.get(_ANSWERED[name], "")), None)
        elif name == "takeover_started":
            self._driver = str(data.get("driver", ""))
        elif name == "takeover_ended":
            self._driver = ""
            self._asked.pop(str(data.get("takeover_id", "")), None)

    def line(self, run: RunView) -> str:
        """The sentence for the run as it is now."""
        if not run.active:
            return _ended(run)
        if self._driver:
            return f"{self._driver} has the browser; the agent waits for it back"
        if self._asked:
            return f"Waiting for you: {list(self._asked.values())[-1]}"
        place = self._queued or run.queue_position
        if run.queued:
            return f"Queued: {ordinal(place)} in line" if place else "Queued: waiting to start"
        return self._activity or "Starting"


def _sentence_part(sentence: str) -> str:
    """ "The agent needs Email." -> "the agent needs Email", to follow "Waiting for you: "."""
    text = sentence.rstrip(".")
    return text[:1].lower() + text[1:] if text[:4] == "The " else text


def _waiting_for(name: str, data: dict[str, Any]) -> str:
    if name == "approval_requested":
        what = data.get("question") or data.get("reason") or data.get("action", "an action")
        return f"an approval ({what})"
    if name == "takeover_requested":
        if data.get("origin") == "TAKEOVER_ORIGIN_PERSON":
            return "the person who took over to hand the browser back"
        return str(data.get("reason", "")) or "a person at the browser"
    about = data.get("form_description")
    return f"the form “{about}”" if about else "information for a form"


def _ended(run: RunView) -> str:
    took = f" after {duration(run.duration)}" if run.duration is not None else ""
    if run.success:
        return f"Succeeded{took}"
    if run.state_class == "cancelled":
        return f"Cancelled{took}" + (f" by {run.cancelled_by}" if run.cancelled_by else "")
    return f"Failed{took}: {run.error_words}" if run.error_words else f"Failed{took}"
