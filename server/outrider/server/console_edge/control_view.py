"""Who has the browser of a run, as its page shows it: nobody yet (the run is queued), the agent,
the agent asking for a person, a person (maybe the reader), or nobody any more; and what the
reader may do about it."""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.timestamp_pb2 import Timestamp

from outrider.server.console_edge.views import WAITING, may
from outrider.server.core.control.browsers import VIEWPORT
from outrider.server.core.principals import Principal, Scope
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.storage import ACTIVE_STATES
from outrider.v1 import browser_control_pb2 as bc
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_pb2


@dataclass(frozen=True)
class ControlView:
    run_id: str
    shown: bool  # a browser run: it has a live view (while it is active)
    active: bool
    state: str  # "queued", "agent", "requested", "person" or "ended"
    takeover: str  # "interactions/<id>" of the open takeover, or ""
    driver: str
    reason: str  # why the agent asked
    expires: Timestamp
    driving: bool  # the reader has control
    can_control: bool  # may take over, drive and hand back
    can_decline: bool  # may decline the agent's request
    viewport: tuple[int, int]
    queue_position: int = 0


def control_view(runs: RunManager, run: run_pb2.Run, principal: Principal) -> ControlView:
    run_id = run.name.removeprefix("runs/")
    active = run.state in ACTIVE_STATES
    browser = run.kind == run_pb2.RUN_KIND_AUTOMATE
    takeover = _open_takeover(runs, run_id, principal) if active and browser else None
    driver = takeover.takeover_control.driver if takeover else ""
    state = "ended" if not active else "person" if driver else "requested" if takeover else "agent"
    if state == "agent" and run.state == run_pb2.RUN_STATE_QUEUED:
        state = "queued"  # no browser before its turn: nothing to take over
    return ControlView(
        run_id=run_id,
        shown=browser,
        active=active,
        state=state,
        takeover=takeover.name if takeover else "",
        driver=driver,
        reason=takeover.takeover.reason if takeover else "",
        expires=takeover.expire_time if takeover else Timestamp(),
        driving=bool(driver) and driver == principal.id,
        can_control=may(principal, Scope.BROWSER_CONTROL),
        can_decline=may(principal, Scope.INTERACTIONS_ANSWER)
        and takeover is not None
        and takeover.takeover.origin == bc.TAKEOVER_ORIGIN_AGENT
        and not driver,
        viewport=VIEWPORT,
        queue_position=run.queue_position,
    )


def waiting_for(runs: RunManager, run: run_pb2.Run, principal: Principal) -> str:
    """Where a run waiting for a person waits: "browser" (a takeover asked for, or a person
    has it), "question" (a form or an approval), "" when it does not wait."""
    if run.state not in WAITING:
        return ""
    if run.kind == run_pb2.RUN_KIND_AUTOMATE:
        if _open_takeover(runs, run.name.removeprefix("runs/"), principal) is not None:
            return "browser"
    return "question"


def _open_takeover(runs: RunManager, run_id: str, principal: Principal) -> ip.Interaction | None:
    pending, _ = runs.interactions.list(run_id, [ip.INTERACTION_STATE_PENDING], 50, "", principal)
    takeovers = [i for i in pending if i.kind == ip.INTERACTION_KIND_TAKEOVER]
    return takeovers[-1] if takeovers else None
