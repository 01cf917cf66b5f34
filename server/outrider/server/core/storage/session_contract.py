"""The part of the store contract (`contract.Store`) that keeps sessions: their records, where each
of their runs sits in the session's event stream, and the session's own events. Both backends keep
it; `core/sessions/` is its only user."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from outrider.server.core.storage.start_key import StartKey
from outrider.v1 import session_pb2

LIVE_SESSION_STATES = (
    session_pb2.SESSION_STATE_IDLE,
    session_pb2.SESSION_STATE_RUNNING,
    session_pb2.SESSION_STATE_CONTROLLED,
)
# `insert_session`'s refusal when the tenant already has its maximum of live sessions.
TENANT_SESSIONS_FULL = "TENANT_SESSION_LIMIT"


@dataclass(frozen=True)
class KeyedSession:
    """The session a create's key names, and the digest of the request that made it."""

    session_id: str
    digest: str


@dataclass(frozen=True)
class SessionRunRow:
    """One run of a session: where its events sit in the session's stream (its event n is the
    session's event base + n) and, once it ended, its last sequence and the page it ended on."""

    run_id: str
    base: int
    final: int | None = None  # None while the run is active
    end_url: str = ""
    end_title: str = ""


class SessionStore(Protocol):
    """Sessions, as `contract.Store` keeps them. Reads take an optional `tenant`: given, sessions
    of other tenants do not exist. Only the process executing a session writes to it."""

    async def insert_session(
        self,
        session: session_pb2.Session,
        session_id: str,
        tenant_limit: int,
        key: StartKey | None = None,
    ) -> str | None:
        """Inserts a new session, committed before it returns, unless its tenant already has
        `tenant_limit` live sessions (0: no limit) in the store (of every process sharing it),
        or another session holds `key` (its create's idempotency key, as runs' starts have
        them): then returns the refusal's reason (TENANT_SESSIONS_FULL, REQUEST_ID_TAKEN) and
        saves nothing. Counting, taking the key and inserting are one step for every process.
        The inserting process executes the session."""

    async def find_session_start(self, key: StartKey) -> KeyedSession | None:
        """The session `key` names (created since `key.since_us`, or still live), if any."""

    def save_session(self, session: session_pb2.Session, session_id: str) -> None:
        """Updates a session (its state, page, timers)."""

    def get_session(
        self, session_id: str, tenant: str | None = None
    ) -> session_pb2.Session | None: ...

    def list_sessions(
        self,
        limit: int,
        before: tuple[int, str] | None,
        states: Iterable[int],
        kind: int,
        tenant: str | None = None,
    ) -> list[session_pb2.Session]:
        """Sessions newest first, strictly older than the (create_us, id) cursor when given."""

    def count_live_sessions(self, tenant: str | None = None) -> int:
        """Live sessions in the store (of every process sharing it), of `tenant` when given."""

    def add_session_run(self, session_id: str, row: SessionRunRow) -> None:
        """Records that a run of the session starts: its events follow the session's event
        `row.base` in the session's stream."""

    def finish_session_run(self, session_id: str, row: SessionRunRow) -> None:
        """Records how the session's run `row.run_id` ended (its final sequence, its last page)."""

    def session_runs(self, session_id: str) -> list[SessionRunRow]:
        """The session's runs in the order they ran."""

    def append_session_event(self, session_id: str, event: session_pb2.SessionEvent) -> None:
        """Keeps one of the session's own events (SessionStarted, SessionEnded), at its
        sequence; watchers in other processes are woken as for a run's events."""

    def session_events_after(
        self, session_id: str, after: int, limit: int
    ) -> list[session_pb2.SessionEvent]:
        """The session's own events after sequence `after`, in order."""

    async def purge_ended_sessions(self, before_us: int, limit: int) -> int:
        """Deletes up to `limit` ended sessions created before `before_us` (oldest first) with
        their runs' places and their own events; how many (retention)."""

    def orphaned_sessions(self) -> list[session_pb2.Session]:
        """Live sessions that no running process executes (on SQLite, whose file one process
        owns: every live one): what a starting process, or a replica's sweep, ends as lost."""

    def claim_session(self, session_id: str) -> bool:
        """Makes this process the one that ends a live session nobody executes; False when
        another process claimed it first (or it is no longer orphaned)."""

    def session_executor(self, session_id: str) -> str | None:
        """The announced address of the live process executing a live session, or None."""
