"""One browser run's live browser as the core leads it: who has control (the agent, or a person
in a takeover), the people watching its screen, and the takeover interactions through the
broker. The agent is paused by the gate while a person drives; the takeover ends by hand-back,
decline, expiry (no input for the takeover TTL) or the run's end, and the agent goes on.

A person who watches the screen while in control (the console does) is there as long as one of
their screens is open: when the last one closes (their tab closed, their connection lost), their
control ends after a short grace instead of the whole lease, unless a screen of theirs opens
again meanwhile (the page reloaded). Everyone watching is told the new end at once.

A run executed here has one RunControl (core/control/browsers.py keeps them); its agent reaches
it through its RunContext, the edges through BrowserControls.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from google.protobuf import timestamp_pb2

from outrider.server.core import clock
from outrider.server.core.control.gate import ControlGate
from outrider.server.core.control.input import TypedText
from outrider.server.core.control.screen_watch import LiveBrowser, ScreenWatch
from outrider.server.core.errors import FailedPrecondition, NotFound, Unavailable
from outrider.server.core.interactions.broker import InteractionBroker
from outrider.server.core.interactions.resolutions import TakeoverAnswer, id_of
from outrider.server.core.names import run_name
from outrider.server.core.secrets.redaction import Redactor
from outrider.v1 import browser_control_pb2 as bc
from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import interaction_pb2 as ip

# How long a takeover waits for the agent's browser work in progress (an action, a page read;
# each bounded by the browser timeouts) before it gives up and says to try again; under the 15 s
# a relayed call may take, so a takeover made on another replica is answered, not timed out.
PAUSE_TIMEOUT = 12.0


class RunControl:
    def __init__(
        self,
        run_id: str,
        broker: InteractionBroker,
        redactor: Redactor,
        lease: float,
        grace: float = 10.0,
    ) -> None:
        self.run_id = run_id
        self.gate = ControlGate()
        self.live: LiveBrowser | None = None
        self.typed = TypedText(redactor)
        self.lock = asyncio.Lock()  # one person's call at a time: take over, input, hand back
        self._broker = broker
        self._lease = lease  # seconds a person keeps control after their last input
        self._grace = grace  # ... and after their last screen closed
        self._viewers: Counter[str] = Counter()  # open screens per principal
        self._left = ""  # the driver whose last screen closed: their control ends soon
        self.current: ip.Interaction | None = None  # the open takeover
        self.latest = ""  # id of the newest takeover, for hand-backs that come after its end
        self._last_end: tuple[str, TakeoverAnswer] | None = None  # (its driver, its ending)
        self._inputs = 0
        self._taking = False  # a takeover is pausing the agent
        self._watches: set[ScreenWatch] = set()
        self.endings: list[TakeoverAnswer] = []  # ends of takeovers the agent did not ask for
        self.taken = False  # a person has had the browser during this run

    # the agent's side

    def attach(self, live: LiveBrowser | None) -> None:
        """The run's browser opened (a LiveBrowser) or closed (None)."""
        for watch in self._watches:
            watch.detach()
        self.live = live
        for watch in self._watches:
            self._connect(watch)
        self._tell_watchers()

    async def request_human(self, iteration_id: str, reason: str) -> TakeoverAnswer:
        """The agent asks for a person and waits (paused) until the takeover ends."""
        request = bc.TakeoverRequested(
            iteration_id=iteration_id,
            origin=bc.TAKEOVER_ORIGIN_AGENT,
            reason=reason,
            url=self._where(),
        )
        interaction = self._open(request)
        async with self.gate.idle():
            return await self._broker.wait_takeover(id_of(interaction))

    def take_endings(self) -> list[TakeoverAnswer]:
        taken, self.endings = self.endings, []
        return taken

    # the people's side

    async def take_over(self, driver: str, force: bool) -> ip.Interaction:
        async with self.lock:
            current = self.current
            if current is not None and current.takeover_control.driver:
                return self._hand_over(current, driver, force)
            if self.live is None:
                raise FailedPrecondition(
                    f"{run_name(self.run_id)} has no browser open right now (it has not started, "
                    "or its browser is restarting); try again in a moment",
                    "NO_BROWSER",
                )
            self._taking = True
            try:
                await self._pause()
                current = self.current or self._open(
                    bc.TakeoverRequested(
                        origin=bc.TAKEOVER_ORIGIN_PERSON, requested_by=driver, url=self._where()
                    )
                )
                self._inputs = 0
                self._left = ""
                started = self._broker.start_takeover(
                    id_of(current), driver, self._lease, self._where()
                )
            except BaseException:
                self.gate.release()
                raise
            finally:
                self._taking = False
            self.taken = True
            self._tell_watchers()
            return started

    async def _pause(self) -> None:
        try:
            await self.gate.take(PAUSE_TIMEOUT)
        except TimeoutError:
            raise Unavailable(
                f"the agent of {run_name(self.run_id)} did not pause within "
                f"{PAUSE_TIMEOUT:.0f} s (a browser call that does not end); try again",
                "AGENT_BUSY",
            ) from None

    def _hand_over(self, current: ip.Interaction, driver: str, force: bool) -> ip.Interaction:
        """Take-over of a takeover someone already drives: the same person renews their
        control; another takes it only with force."""
        holder = current.takeover_control.driver
        if holder == driver:
            self._broker.extend_takeover(id_of(current), self._lease)
            self._tell_watchers()
            return current
        if not force:
            until = current.expire_time.ToJsonString()
            raise FailedPrecondition(
                f"{holder} has control of the browser of {run_name(self.run_id)} (until {until} "
                "unless they send input); ask them to hand it back, or take over with force",
                "TAKEOVER_IN_PROGRESS",
            )
        self._left = ""
        started = self._broker.start_takeover(id_of(current), driver, self._lease, self._where())
        self._tell_watchers()
        return started

    async def forward(
        self, driver: str, events: Sequence[bcs.InputEvent]
    ) -> timestamp_pb2.Timestamp:
        """The person in control's input, to the current tab; it keeps their control alive."""
        async with self.lock:
            current = self.current
            if current is None or current.takeover_control.driver != driver:
                raise self._not_in_control(driver)
            if self.live is None:
                raise FailedPrecondition("the run's browser is restarting; try again", "NO_BROWSER")
            self.typed.record(events)
            self._inputs += len(events)
            await self.live.forward(events)
            left = current.expire_time.ToMicroseconds() - clock.now_us()
            if left < self._lease * 500_000 and not self._left:  # half gone: renew (a write)
                self._broker.extend_takeover(id_of(current), self._lease)
                self._tell_watchers()
            return current.expire_time

    def _not_in_control(self, driver: str) -> FailedPrecondition:
        if self.current is not None:
            holder = self.current.takeover_control.driver or "nobody"
            return FailedPrecondition(
                f"{holder} has control of the browser of {run_name(self.run_id)}, not {driver}; "
                "take over first",
                "NOT_IN_CONTROL",
            )
        if self._last_end is not None and self._last_end[0] == driver:
            ending = self._last_end[1].ending
            if ending == bc.TAKEOVER_ENDING_EXPIRED:
                return FailedPrecondition(
                    f"your control of the browser of {run_name(self.run_id)} expired (no input "
                    f"for {self._lease:.0f} s) and the agent has it again; take over again",
                    "TAKEOVER_EXPIRED",
                )
        return FailedPrecondition(
            f"nobody has control of the browser of {run_name(self.run_id)}: the agent drives "
            "it; take over first",
            "NOT_IN_CONTROL",
        )

    async def hand_back(self, by: str, takeover_id: str, note: str) -> ip.Interaction:
        """Ends the current takeover (the named one, when named); one that has already ended is
        returned as it ended."""
        async with self.lock:
            current = self.current
            if current is None or takeover_id not in ("", id_of(current)):
                return self.ended(takeover_id)
            answer = TakeoverAnswer(bc.TAKEOVER_ENDING_HANDED_BACK, by, note)
            return self._broker.resolve_takeover(id_of(current), answer)

    async def decline(self, by: str, takeover_id: str, reason: str) -> ip.Interaction:
        async with self.lock:
            current = self.current
            if current is None or takeover_id not in ("", id_of(current)):
                return self._declined_before(takeover_id)
            if current.takeover.origin != bc.TAKEOVER_ORIGIN_AGENT:
                raise FailedPrecondition(
                    f"{current.name} was begun by a person, not asked for; hand it back",
                    "NOT_REQUESTED",
                )
            if current.takeover_control.driver:
                raise FailedPrecondition(
                    f"{current.takeover_control.driver} has taken {current.name} over; hand it "
                    "back instead",
                    "TAKEOVER_STARTED",
                )
            answer = TakeoverAnswer(bc.TAKEOVER_ENDING_DECLINED, by, reason)
            return self._broker.resolve_takeover(id_of(current), answer)

    def _declined_before(self, takeover_id: str) -> ip.Interaction:
        """A repeated decline is answered with the takeover it declined; anything else that
        ended is refused, saying how it ended."""
        if not takeover_id:
            raise FailedPrecondition(
                f"{run_name(self.run_id)} has no pending request for a person",
                "NO_TAKEOVER_REQUESTED",
            )
        stored = self.ended(takeover_id)
        if stored.takeover_control.ending != bc.TAKEOVER_ENDING_DECLINED:
            how = bc.TakeoverEnding.Name(stored.takeover_control.ending)
            raise FailedPrecondition(f"{stored.name} has ended ({how})", "TAKEOVER_ENDED")
        return stored

    def ended(self, takeover_id: str) -> ip.Interaction:
        """The named takeover of this run (the newest one when unnamed), as stored."""
        wanted = takeover_id or self.latest
        if not wanted:
            raise FailedPrecondition(
                f"{run_name(self.run_id)} has had no takeover to hand back", "NO_TAKEOVER"
            )
        return takeover_of(self._broker, self.run_id, wanted)

    # watching

    def watch(self, width: int, height: int, viewer: str = "") -> ScreenWatch:
        watch = ScreenWatch(width, height, viewer)
        self._watches.add(watch)
        self._viewers[viewer] += 1
        self._connect(watch)
        if viewer and viewer == self._left:  # back (a reload) before the grace ran out
            self._left = ""
            self._keep_control(self._lease)
        watch.control(self.status())
        return watch

    def unwatch(self, watch: ScreenWatch) -> None:
        watch.detach()
        if watch not in self._watches:
            return
        self._watches.discard(watch)
        self._viewers[watch.viewer] -= 1
        if self._viewers[watch.viewer] <= 0:
            del self._viewers[watch.viewer]
            if watch.viewer and watch.viewer == self._driver():  # their last screen closed
                self._left = watch.viewer
                self._keep_control(self._grace)

    def _driver(self) -> str:
        return self.current.takeover_control.driver if self.current is not None else ""

    def _keep_control(self, seconds: float) -> None:
        """The person in control keeps it `seconds` from now; every viewer is told."""
        if self.current is not None and self._driver():
            self._broker.extend_takeover(id_of(self.current), seconds)
            self._tell_watchers()

    def _connect(self, watch: ScreenWatch) -> None:
        if self.live is not None:
            watch.unwatch = self.live.watch(watch.width, watch.height, watch.deliver)

    def status(self) -> bcs.ControlStatus:
        current = self.current
        if current is None:
            state = bcs.CONTROL_STATE_AGENT if self.live else bcs.CONTROL_STATE_NO_BROWSER
            return bcs.ControlStatus(state=state)
        driver = current.takeover_control.driver
        return bcs.ControlStatus(
            state=bcs.CONTROL_STATE_PERSON if driver else bcs.CONTROL_STATE_REQUESTED,
            takeover=current.name,
            driver=driver,
            expire_time=current.expire_time,
            reason=current.takeover.reason,
        )

    def _tell_watchers(self) -> None:
        status = self.status()
        for watch in self._watches:
            watch.control(status)

    def close(self) -> None:
        """The run ended: its viewers' streams end."""
        for watch in self._watches:
            watch.detach()
            watch.end()
        self._watches.clear()
        self.live = None

    # takeover bookkeeping

    def _open(self, request: bc.TakeoverRequested) -> ip.Interaction:
        interaction, _ = self._broker.open_takeover(self.run_id, request, self._finishing)
        self.current, self.latest = interaction, id_of(interaction)
        self._tell_watchers()
        return interaction

    def _finishing(self, answer: TakeoverAnswer) -> TakeoverAnswer:
        """Called by the broker as the current takeover ends, however it ends: the agent may go
        on (unless a takeover is pausing it right now), and hears of it."""
        ended, self.current = self.current, None
        self.typed.flush()
        driver = ended.takeover_control.driver if ended is not None else ""
        answer = replace(answer, driver=driver, url=self._where(), input_events=self._inputs)
        if self._left and answer.ending == bc.TAKEOVER_ENDING_EXPIRED:
            answer = replace(answer, note=f"the console page of {self._left} closed")
        self._left = ""
        if ended is not None:
            self._last_end = (driver, answer)
            if ended.takeover.origin == bc.TAKEOVER_ORIGIN_PERSON:
                self.endings.append(answer)
        if not self._taking:
            self.gate.release()
        self._tell_watchers()
        return answer

    def _where(self) -> str:
        return self.live.where() if self.live is not None else ""


def takeover_of(broker: InteractionBroker, run_id: str, takeover_id: str) -> ip.Interaction:
    """The stored takeover `takeover_id` of run `run_id`; NotFound for any other interaction."""
    try:
        stored = broker.stored(takeover_id)
    except NotFound:
        stored = None
    if (
        stored is None
        or stored.run != run_name(run_id)
        or stored.kind != ip.INTERACTION_KIND_TAKEOVER
    ):
        raise NotFound(f"interactions/{takeover_id} is not a takeover of {run_name(run_id)}")
    return stored
