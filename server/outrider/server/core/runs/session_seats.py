"""The seam between runs and sessions (`core/sessions/`, the room above this one): what a start
naming a session asks of sessions, and what a run in a session is given. Sessions implement
`SessionSeats`; runs call it without knowing how sessions work.

A run takes the session's one seat at its start (refused while another run has it), says when
its record is saved and it begins (`Seat.begin`), and gives the seat back when it ends
(`Seat.leave`), or at once when its start was refused after the seat was taken.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from outrider.server.core.errors import Unimplemented
from outrider.server.core.names import session_name
from outrider.server.core.principals import Principal
from outrider.server.core.vault.profile_state import StorageState
from outrider.v1 import run_pb2


class SessionElsewhere(Unimplemented):
    """The session is live on another replica, which alone holds its browser: a call for it
    (a run's start, its end, a takeover) is relayed there."""

    def __init__(self, session_id: str) -> None:
        super().__init__(
            f"{session_name(session_id)} is a session another replica executes; set the same "
            "OUTRIDER_CLUSTER_SECRET on every replica so that any of them relays the call there",
            reason="SESSION_ON_ANOTHER_REPLICA",
        )
        self.session_id = session_id


class Kept(Protocol):
    """What an agent keeps for a session between its runs: a browser session's live browser
    context (its tabs, their pages, its cookies), a research session's pages. Held by the
    session on the replica executing it; closed when the session ends."""

    def where(self) -> tuple[str, str]:
        """(URL, title) of the page it is on now; ("", "") when it has none."""

    async def aclose(self) -> None: ...


# Told by what an agent keeps when it is lost under the session (the browser crashed), with why.
OnLost = Callable[[str], None]


class SessionAgent(Protocol):
    """An agent that keeps something for sessions of its kind (the browser agent does)."""

    async def keep(
        self, start_url: str, on_lost: OnLost, storage_state: StorageState | None = None
    ) -> Kept: ...


@dataclass
class SessionProfile:
    """The profile a browser session started from, as a run in it saves to it
    (RunOptions.profile_save): its id, and the version the session's browser state comes from,
    the one loaded when the session started, then the one its last run saved. A save over a
    version saved since by anyone else is refused, as a run's own profile's is."""

    profile_id: str
    version: int


@dataclass(frozen=True)
class SessionView:
    """A session as one of its runs sees it: its name, what its agent keeps, the bounded
    summary of its earlier runs for the model ("" for the first run), and the profile it
    started from (None for none)."""

    name: str
    kept: Kept | None
    memory: str = ""
    earlier_runs: int = 0  # runs of the session before this one
    left_out: int = 0  # of those, how many the summary leaves out to fit its budget
    profile: SessionProfile | None = None


class Seat(Protocol):
    """One run's place in a session, from the start that took it to the run's end."""

    @property
    def view(self) -> SessionView: ...

    def begin(self) -> str:
        """The run's record is saved and it is launched: its events belong to the session. Says
        why the run must end at once instead of executing ("" when it may execute): the session
        began to end while the run was starting."""

    def leave(self, run: run_pb2.Run | None) -> None:
        """The run ended (`run`, as saved with its outcome), or its start was refused (None):
        the session is free for the next run."""


class SessionSeats(Protocol):
    """What starts ask of sessions."""

    def take(
        self,
        name: str,
        kind: int,
        run_id: str,
        principal: Principal,
        field: str,
        by_hand: bool = False,
    ) -> Seat:
        """The seat of session `name` (as the caller gave it, at `field` of its request) for a
        new run of `kind` (`by_hand`: a person's, the session CONTROLLED while it runs):
        NotFound for a session the principal cannot see, InvalidArgument for a malformed name
        or a session of the other kind, FailedPrecondition once it ended (its end reason) or
        while another run has its seat (SESSION_BUSY)."""

    async def settle(self, name: str) -> None:
        """Waits (briefly) while the run that has session `name`'s seat is winding down: its
        outcome is out, so its caller may start the next run, which should not be refused for
        the moment the last run takes to give the seat back."""

    def elsewhere(self, name: str, kind: int, principal: Principal, field: str) -> str | None:
        """The id of session `name` when another replica holds it (a start is relayed there);
        None when this process does. Refuses as `take` does a session the start cannot use."""

    def profile_of(self, name: str, kind: int, principal: Principal, field: str) -> str:
        """The name of the profile session `name` started from ("" for none), for a start that
        saves to it. Refuses as `take` does a session the start cannot use."""

    def held_by(self, principal_id: str) -> int:
        """Live sessions the principal created that this process holds."""
