"""The live browsers of the browser runs executed here (one RunControl each), and what people do
with any run's browser: watch its screen, take it over, drive it, hand it back, decline the
agent's request. A call for a run another replica executes is relayed there (the browser lives
with its run's executor); a frame stream is relayed as a stream."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence

from google.protobuf import timestamp_pb2

from outrider.server.core import validation
from outrider.server.core.cluster.relay import ExecutedElsewhere, Relay, executor_address, relay_for
from outrider.server.core.control.input import check_events
from outrider.server.core.control.run_control import RunControl, takeover_of
from outrider.server.core.errors import FailedPrecondition, InvalidArgument
from outrider.server.core.interactions.broker import InteractionBroker
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.storage import ACTIVE_STATES, Store
from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_pb2

Find = Callable[[str, str | None], run_pb2.Run]  # (run id, tenant or None) -> run, or NotFound
VIEWPORT = (1280, 800)  # the size of every run's viewport (browser/session.py)
_ALL_STATES = [s for s in ip.InteractionState.values() if s]


class BrowserControls:
    def __init__(
        self,
        broker: InteractionBroker,
        store: Store,
        relay: Relay | None,
        leases: tuple[float, float],
        find: Find,
        patience: float,
    ) -> None:
        self._broker = broker
        self._store = store
        self._relay = relay
        self._leases = leases  # (seconds of control after the last input, after the last watch)
        self._find = find
        self._patience = patience  # how long a relayed call waits for its executor's presence
        self._controls: dict[str, RunControl] = {}

    def open(self, run_id: str, redactor: Redactor) -> RunControl:
        control = RunControl(run_id, self._broker, redactor, *self._leases)
        self._controls[run_id] = control
        return control

    def of(self, run_id: str) -> RunControl | None:
        """The control of a run executed here, if it is."""
        return self._controls.get(run_id)

    def close(self, run_id: str) -> None:
        control = self._controls.pop(run_id, None)
        if control is not None:
            control.close()

    # what people do

    async def watch(
        self, run_id: str, size: tuple[int, int], principal: Principal
    ) -> AsyncGenerator[bcs.WatchScreenResponse, None]:
        """The screen and control changes until the run ends; errors raise now, not lazily."""
        principal.require(Scope.RUNS_READ)
        width, height = _checked_size(size)
        try:
            control = self._control(run_id, principal)
        except ExecutedElsewhere as elsewhere:
            relay, address = await self._executor(elsewhere, principal)
            return relay.watch_screen(address, run_id, (width, height), principal)
        return _screen(control, width, height, principal.id)

    async def take_over(self, run_id: str, force: bool, principal: Principal) -> ip.Interaction:
        principal.require(Scope.BROWSER_CONTROL)
        try:
            control = self._control(run_id, principal)
        except ExecutedElsewhere as elsewhere:
            relay, address = await self._executor(elsewhere, principal)
            return await relay.take_over(address, run_id, force, principal)
        return await control.take_over(principal.id, force)

    async def forward(
        self, run_id: str, events: Sequence[bcs.InputEvent], principal: Principal
    ) -> timestamp_pb2.Timestamp:
        principal.require(Scope.BROWSER_CONTROL)
        check_events(events)
        try:
            control = self._control(run_id, principal)
        except ExecutedElsewhere as elsewhere:
            relay, address = await self._executor(elsewhere, principal)
            return await relay.forward_input(address, run_id, events, principal)
        return await control.forward(principal.id, events)

    async def hand_back(
        self, run_id: str, takeover_id: str, note: str, principal: Principal
    ) -> ip.Interaction:
        """Always answers for a run that had a takeover: one that already ended (expired, the
        run ended) is returned as it ended."""
        principal.require(Scope.BROWSER_CONTROL)
        validation.check_reason(note, "note")
        try:
            try:
                control = self._control(run_id, principal)
            except ExecutedElsewhere as elsewhere:
                relay, address = await self._executor(elsewhere, principal)
                return await relay.hand_back(address, run_id, (takeover_id, note), principal)
        except FailedPrecondition as ended:
            if ended.reason != "RUN_ENDED":
                raise
            return self._newest_takeover(run_id, takeover_id)
        return await control.hand_back(principal.id, takeover_id, note)

    async def decline(
        self, run_id: str, takeover_id: str, reason: str, principal: Principal
    ) -> ip.Interaction:
        principal.require(Scope.INTERACTIONS_ANSWER)
        validation.check_reason(reason)
        try:
            control = self._control(run_id, principal)
        except ExecutedElsewhere as elsewhere:
            relay, address = await self._executor(elsewhere, principal)
            return await relay.decline_takeover(address, run_id, (takeover_id, reason), principal)
        return await control.decline(principal.id, takeover_id, reason)

    # finding the run's browser

    async def _executor(
        self, elsewhere: ExecutedElsewhere, principal: Principal
    ) -> tuple[Relay, str]:
        """The relay and the address of the replica whose browser the run has."""
        relay = relay_for(self._relay, elsewhere, principal)
        run_id = elsewhere.run_id
        address = await executor_address(self._store, run_id, self._patience, "browser")
        if address is None:
            raise _ended(run_id)
        return relay, address

    def _control(self, run_id: str, principal: Principal) -> RunControl:
        """This replica's control of the run; ExecutedElsewhere, or why there is none."""
        run = self._find(run_id, principal.tenant_filter)
        if run.kind != run_pb2.RUN_KIND_AUTOMATE:
            raise FailedPrecondition(
                f"{run.name} is a research run; only browser runs have a browser", "NO_BROWSER"
            )
        control = self._controls.get(run_id)
        if control is not None:
            return control
        if run.state in ACTIVE_STATES:
            raise ExecutedElsewhere(run_id)
        raise _ended(run_id)

    def _newest_takeover(self, run_id: str, takeover_id: str) -> ip.Interaction:
        if takeover_id:
            return takeover_of(self._broker, run_id, takeover_id)
        rows = self._store.list_interactions(run_id, _ALL_STATES, 10_000, None)
        takeovers = [i for i in rows if i.kind == ip.INTERACTION_KIND_TAKEOVER]
        if not takeovers:
            raise FailedPrecondition(f"runs/{run_id} had no takeover to hand back", "NO_TAKEOVER")
        return takeovers[-1]


async def _screen(
    control: RunControl, width: int, height: int, viewer: str
) -> AsyncGenerator[bcs.WatchScreenResponse, None]:
    watch = control.watch(width, height, viewer)
    try:
        while (message := await watch.next()) is not None:
            yield message
    finally:
        control.unwatch(watch)


def _checked_size(size: tuple[int, int]) -> tuple[int, int]:
    checked = []
    for field, value, default in zip(("max_width", "max_height"), size, VIEWPORT, strict=True):
        if value and not 16 <= value <= 4096:
            raise InvalidArgument.single(
                field, "must be 16 to 4096 pixels, or 0 for the viewport's"
            )
        checked.append(value or default)
    return checked[0], checked[1]


def _ended(run_id: str) -> FailedPrecondition:
    return FailedPrecondition(
        f"runs/{run_id} has ended; its screenshots are among its artifacts", "RUN_ENDED"
    )
