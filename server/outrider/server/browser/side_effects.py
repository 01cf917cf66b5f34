"""What a browser run journals as side effects (core/runs/side_effects.py keeps the journal),
and when.

Side effects are what could change state outside the run if it were started again after a
takeover: a form sent with a method other than GET, any request with a method other than GET,
HEAD or OPTIONS that the page sends once the agent has acted (beacons excluded: they report, and
the page sends them on every load anyway), a download kept, files attached for upload, an
approval granted. Requests the page makes before the agent's first action are those every start
of the task makes again (the start URL loading): not journaled. Reads, fills, scrolls and
navigation are not side effects: repeating them is harmless.

Each entry is committed before what it describes happens (a download: once it arrived); when it
cannot be (the store is unreachable, or the run moved to another replica), the request is not
sent and the action fails with the reason, which the model is told.
"""

from __future__ import annotations

import logging
from urllib.parse import urldefrag

from outrider.server.browser.elements import ElementInfo
from outrider.server.browser.firewall import Hold
from outrider.server.core.errors import Unavailable
from outrider.server.core.runs.side_effects import SideEffectJournal, SideEffectRefused
from outrider.server.security.fences import defused_line
from outrider.v1 import run_event_pb2 as rp

log = logging.getLogger(__name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_MAX_TEXT = 200  # characters of page-chosen text (a form's label, a URL) in an entry


class BrowserJournal:
    """A run's journal as the browser agent writes it; without a journal (unit-level uses of
    the agent) every side effect is let through unrecorded."""

    def __init__(self, journal: SideEffectJournal | None) -> None:
        self._journal = journal
        self._armed = False  # the agent has acted: requests from now on are its doing
        self._iteration_id = ""
        self._action = ""
        self._submitted: tuple[str, str] | None = None  # this action's form submit (method, URL)

    @property
    def earlier(self) -> list[rp.SideEffect]:
        """What attempts before this one did (a run taken over)."""
        return self._journal.earlier if self._journal is not None else []

    async def action_starts(self, iteration_id: str, action: str) -> None:
        """An action of the agent begins: what was noted since the last one is committed first
        (its step starts after the journal holds it)."""
        self._armed, self._iteration_id, self._action = True, iteration_id, action
        self._submitted = None
        if self._journal is None:
            return
        try:
            await self._journal.settled()
        except Unavailable as error:  # a side effect of this action waits for it in turn
            log.warning("side-effect journal not confirmed before the next action: %s", error)

    async def request(self, method: str, url: str, resource_type: str) -> str | None:
        """Before a request leaves the browser: None lets it go, a string says why it may not."""
        method = method.upper()
        if not self._armed or method in SAFE_METHODS or resource_type == "ping":
            return None
        if self._submitted == (method, urldefrag(url).url):
            return None  # the form submit journaled for this action, already
        what = f"the page sent a {method} request"
        return await self._record(rp.SIDE_EFFECT_KIND_REQUEST, what, method, url)

    async def form_submit(self, form: ElementInfo) -> str | None:
        """Before a form is submitted (GET forms only read: not journaled)."""
        method = (form.form_method or "get").upper()
        if method in SAFE_METHODS:
            return None
        url = urldefrag(form.form_action or form.page_url).url
        self._submitted = (method, url)
        label = f' "{_page_text(form.form_label)}"' if form.form_label else ""
        return await self._record(
            rp.SIDE_EFFECT_KIND_FORM_SUBMIT, f"submitted the form{label}", method, url
        )

    async def upload(self, files: list[str], page_url: str) -> str | None:
        what = f"attached {', '.join(_page_text(name) for name in files)} for upload"
        return await self._record(rp.SIDE_EFFECT_KIND_UPLOAD, what, "", page_url)

    async def approval_granted(self, hold: Hold, resolved_by: str) -> str | None:
        by = f" by {resolved_by}" if resolved_by else ""
        what = f"{hold.action} on {hold.page_host} for {hold.target_host} approved{by}"
        return await self._record(rp.SIDE_EFFECT_KIND_APPROVAL_GRANTED, what, "", "")

    def download(self, filename: str, url: str) -> None:
        """A download arrived (the page started it): journaled now, committed before the next
        action."""
        if self._journal is not None:
            what = f"downloaded {_page_text(filename)!r}"
            self._journal.note(self._entry(rp.SIDE_EFFECT_KIND_DOWNLOAD, what, "", url))

    async def _record(self, kind: int, what: str, method: str, url: str) -> str | None:
        if self._journal is None:
            return None
        try:
            await self._journal.record(self._entry(kind, what, method, url))
        except SideEffectRefused as refusal:
            log.warning("side effect not done (%s): %s", what, refusal)
            return f"This was not done ({what}): {refusal}."
        return None

    def _entry(self, kind: int, what: str, method: str, url: str) -> rp.SideEffect:
        return rp.SideEffect(
            kind=kind,  # type: ignore[arg-type]
            iteration_id=self._iteration_id,
            action=self._action,
            method=method,
            url=_page_text(url),
            description=what,
        )


def _page_text(text: str) -> str:
    """Page-chosen text as it may appear in an entry (shown to people and, on resumption, to the
    model): one defused line, bounded."""
    line = defused_line(text)
    return line if len(line) <= _MAX_TEXT else line[: _MAX_TEXT - 1] + "…"
