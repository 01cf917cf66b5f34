"""A browser run's side of the people who watch and take over its browser (the core's RunControl
leads the takeovers): it offers each browser session as it opens, passes the gate that pauses
the agent while a person drives, tells the model what a person did, and carries out the agent's
request_human.

Decided here: after a takeover the agent goes on in the tab that was current when the person
handed back (a tab the person opened is followed, as the agent follows popups), and the page is
read again before the model is asked anything.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol

from outrider.server.browser.actions import ActionResult
from outrider.server.browser.live import LiveSession
from outrider.server.browser.reporting import Reporter
from outrider.server.browser.secrets import Secrets
from outrider.server.browser.session import BrowserSession
from outrider.server.core.control.gate import ControlGate
from outrider.server.core.interactions.resolutions import TakeoverAnswer
from outrider.server.core.runs.agent import RunContext
from outrider.server.security.fences import defused_line
from outrider.v1 import browser_control_pb2 as bc

TAKEN_OVER = "a person took over the browser since it was chosen"
NOT_DONE = (  # as browser/turns.py words the calls of a turn it stops
    f"Not carried out: {TAKEN_OVER}. Look at the page as it is now and call it again if it "
    "still applies."
)
_GO_ON = "Find another way, or abort if there is none."


class PageReader(Protocol):
    """The run's observer, as human control uses it (browser/observe.py)."""

    async def observe(self, iteration_id: str, screenshot: bool = True) -> bool: ...


class ControlledRun(Protocol):
    """What human control uses of its run (browser/run.py)."""

    @property
    def ctx(self) -> RunContext: ...
    @property
    def secrets(self) -> Secrets: ...
    @property
    def reporter(self) -> Reporter: ...
    @property
    def observer(self) -> PageReader: ...


class HumanControl:
    def __init__(self, run: ControlledRun) -> None:
        self._run = run
        self._control = run.ctx.control
        self.gate = self._control.gate if self._control is not None else ControlGate()
        self._live: LiveSession | None = None

    @property
    def can_ask(self) -> bool:
        """request_human is offered: someone can answer it (as for held actions)."""
        ctx = self._run.ctx
        interactive = ctx.automate.interactive and not ctx.options.refuse_held_actions
        return interactive and self._control is not None

    @property
    def taken(self) -> bool:
        return self._control is not None and self._control.taken

    async def session_changed(self, session: BrowserSession | None) -> None:
        """Offers the new session's screen and input to the core (None: it is closing)."""
        previous, self._live = self._live, None
        if self._control is not None:
            self._live = LiveSession(session, self._run.secrets.redact) if session else None
            self._control.attach(self._live)
        if previous is not None:
            await previous.close()

    def working(self) -> AbstractAsyncContextManager[bool]:
        """Browser work: waits while a person drives; yields False when the page is stale."""
        return self.gate.working()

    async def before_model_call(self) -> bool:
        return await self.gate.before_model_call()

    async def look(self, iteration_id: str) -> bool:
        """Reads the page; again if a person took the browser over before the model was asked
        (the model is never asked about a page a person has changed since). True when a
        screenshot was taken."""
        await self._settled()
        has_screenshot = await self._run.observer.observe(iteration_id)
        while await self.before_model_call():
            await self._settled()
            has_screenshot = await self._run.observer.observe(iteration_id)
        return has_screenshot

    async def _settled(self) -> None:
        if self._live is not None:
            await self._live.settled()

    def read_page(self) -> list[str]:
        """The agent reads the page now: notes on the takeovers it did not ask for that ended
        since, to show with the page."""
        self.gate.read_page()
        endings = self._control.take_endings() if self._control is not None else []
        return [self._told(answer) for answer in endings]

    def refusal(self, iteration_id: str) -> str:
        """What a call of request_human is told where it is not offered."""
        self._run.reporter.status(iteration_id, "request_human refused: nobody can answer it")
        return (
            "Refused: no person can take over the browser on this run (it is not interactive). "
            + _GO_ON
        )

    async def request_human(self, reason: str, iteration_id: str) -> ActionResult:
        return ActionResult(True, self._result(await self.ask_person(reason, iteration_id)))

    async def ask_person(self, reason: str, iteration_id: str) -> TakeoverAnswer:
        """Asks for a person to take the browser over and waits until the takeover ended."""
        assert self._control is not None  # asked only with a control (can_ask, by-hand runs)
        answer = await self._control.request_human(iteration_id, self._run.secrets.redact(reason))
        await self._settled()  # before `_where` says where the person left the browser
        return answer

    def _result(self, answer: TakeoverAnswer) -> str:
        note = f": {self._note(answer.note)}" if answer.note else ""
        if answer.ending == bc.TAKEOVER_ENDING_HANDED_BACK:
            handed = _ended(f"A person took over the browser and handed it back{note}")
            return f"{handed} {self._where()}"
        if answer.ending == bc.TAKEOVER_ENDING_DECLINED:
            return f"{_ended(f'The person declined to take over{note}')} {_GO_ON}"
        if answer.driver:
            why = f" ({self._note(answer.note)})" if answer.note else ""
            return (
                f"A person took over the browser but did not hand it back in time{why}; you "
                f"have it again. {self._where()}"
            )
        return f"Nobody took over the browser in time. {_GO_ON}"

    def _told(self, answer: TakeoverAnswer) -> str:
        note = f" with this note: {self._note(answer.note)}" if answer.note else ""
        how = (
            "handed it back"
            if answer.ending == bc.TAKEOVER_ENDING_HANDED_BACK
            else "left it without handing it back"
        )
        told = _ended(f"A person took over the browser while you worked and {how}{note}")
        return f"{told} {self._where()}"

    def note_of(self, answer: TakeoverAnswer) -> str:
        """The person's hand-back note as the agent may read it ("" when none)."""
        return self._note(answer.note) if answer.note else ""

    def _note(self, text: str) -> str:
        return defused_line(self._run.secrets.redact(text))

    def _where(self) -> str:
        if self._live is None:
            return "Look at the page again before you act."
        current, count = self._live.tabs()
        url = defused_line(self._run.secrets.redact(self._live.where()))
        tabs = f" (tab {current} of {count})" if count > 1 else ""
        return (
            f"The browser is now at {url}{tabs}; what you planned before may no longer fit. "
            "Look at the page again before you act."
        )


def _ended(sentence: str) -> str:
    """`sentence` with a full stop, unless a person's note already ends it."""
    return sentence if sentence.endswith((".", "!", "?")) else sentence + "."
