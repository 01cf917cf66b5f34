"""Sessions nobody holds any more: the process that held one stopped (found at the next start) or
died (found by another replica's failover sweep, on a store replicas share). Nothing a session
held survives its process, so each ends as lost (SESSION_LOST), by one process that claims it,
and only once its active run has ended (the runs' own failover ends a session's run, never
resuming it elsewhere: runs/adoption.py): the session's last event follows its run's."""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass

from outrider.server.core.names import session_id_from
from outrider.server.core.sessions import records
from outrider.server.core.sessions.held import HeldSession
from outrider.server.core.storage import ACTIVE_STATES, Store
from outrider.server.core.storage.session_contract import SessionRunRow
from outrider.server.core.webhooks.notices import session_ended
from outrider.server.core.webhooks.outbox import Outbox
from outrider.v1 import session_pb2


@dataclass(frozen=True)
class Orphans:
    ended: int  # sessions ended now
    seen: dict[str, int]  # those left for a later sweep -> sweeps in a row they were seen


def end_orphans(
    store: Store,
    outbox: Outbox,
    held: Set[str],
    message: str,
    seen_before: Mapping[str, int] | None,
) -> Orphans:
    """Ends the orphaned sessions `store` lists (not `held` here). With `seen_before` (a sweep),
    only those already orphaned at the previous sweep: a replica that lost its database session
    for a moment takes its presence back meanwhile. Without (a start), all of them."""
    ended, seen = 0, {}
    for record in store.orphaned_sessions():
        session_id = session_id_from(record.name)
        if session_id in held:
            continue
        waited = seen_before is None or session_id in seen_before
        if not waited or _run_active(store, session_id) or not store.claim_session(session_id):
            seen[session_id] = (seen_before or {}).get(session_id, 0) + 1
            continue
        _end(store, outbox, session_id, record, message)
        ended += 1
    store.flush()
    return Orphans(ended, seen)


def _run_active(store: Store, session_id: str) -> bool:
    rows = store.session_runs(session_id)
    return any(_active(store, row) for row in rows if row.final is None)


def _active(store: Store, row: SessionRunRow) -> bool:
    run = store.get_run(row.run_id)
    return run is not None and run.state in ACTIVE_STATES


def _end(
    store: Store, outbox: Outbox, session_id: str, record: session_pb2.Session, message: str
) -> None:
    """Records its runs' ends the session did not hear of, then its own end and its notice."""
    for row in store.session_runs(session_id):
        run = store.get_run(row.run_id) if row.final is None else None
        if run is not None:
            store.finish_session_run(
                session_id, SessionRunRow(row.run_id, row.base, run.last_sequence)
            )
            record.last_sequence = max(record.last_sequence, row.base + run.last_sequence)
    closing = records.ending(session_pb2.SESSION_END_REASON_LOST, message)
    with store.together():
        records.mark_ended(record, closing)
        HeldSession(record, None, store, lambda _: None).append(closing)
        outbox.report(session_ended(record))
