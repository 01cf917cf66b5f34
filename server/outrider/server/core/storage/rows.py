"""Decoding stored rows, shared by every backend.

A row that does not decode (written by a bug, or damaged on disk) never takes a read down: an
unreadable run is rewritten as a failed run whose outcome says why, an unreadable event or
interaction is skipped; each is logged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from google.protobuf.message import DecodeError

from outrider.server.core.principals import DEFAULT_TENANT
from outrider.v1 import interaction_pb2, run_event_pb2, run_pb2, session_pb2

log = logging.getLogger(__name__)

UNREADABLE_RUN = "RECORD_UNREADABLE"
# The columns `read_run` takes, in this order.
RUN_COLUMNS = "id, kind, state, create_us, body, tenant"

_M = TypeVar(
    "_M",
    run_pb2.Run,
    run_event_pb2.RunEvent,
    interaction_pb2.Interaction,
    run_event_pb2.SideEffect,
    session_pb2.Session,
    session_pb2.SessionEvent,
)


def run_values(run: run_pb2.Run, run_id: str) -> tuple[Any, ...]:
    """A run as the values of RUN_COLUMNS, for an insert."""
    body = run.SerializeToString()
    return (run_id, run.kind, run.state, run.create_time.ToMicroseconds(), body, _tenant(run))


def interaction_values(
    interaction: interaction_pb2.Interaction, ids: tuple[str, str]
) -> tuple[Any, ...]:
    """An interaction as (id, run_id, state, create_us, body), for an insert."""
    create_us = interaction.create_time.ToMicroseconds()
    return (*ids, interaction.state, create_us, interaction.SerializeToString())


def _tenant(run: run_pb2.Run) -> str:
    return run.tenant or DEFAULT_TENANT


def decoded(kind: type[_M], body: bytes, what: str) -> _M | None:
    """The decoded row, or None (logged) when it does not decode."""
    try:
        return kind.FromString(body)
    except (DecodeError, RecursionError, TypeError) as error:
        log.error("stored %s does not decode, skipped: %s", what, error)
        return None


def read_run(row: Sequence[Any], save: Callable[[run_pb2.Run, str], None]) -> run_pb2.Run:
    """A stored run (RUN_COLUMNS); rows from before tenants existed get their column's tenant.
    A body that does not decode to this run is replaced, for good (`save`), by a failed run
    saying so."""
    run_id, kind, state, create_us, body, tenant = row
    run = decoded(run_pb2.Run, body, f"run {run_id}")
    if run is None or run.name != f"runs/{run_id}":
        run = _unreadable_run(run_id, kind, state, create_us)
        run.tenant = tenant or DEFAULT_TENANT
        save(run, run_id)
    run.tenant = tenant or DEFAULT_TENANT
    return run


def events_from_rows(
    run_id: str, rows: Iterable[tuple[int, bytes]]
) -> list[run_event_pb2.RunEvent]:
    """The events (rows of sequence, body) that decode to what their row says they are."""
    events = []
    for sequence, body in rows:
        event = decoded(run_event_pb2.RunEvent, body, f"event {sequence} of run {run_id}")
        if event is not None and event.sequence == sequence:
            events.append(event)
        elif event is not None:
            log.error("stored event %d of run %s holds another event, skipped", sequence, run_id)
    return events


def interactions_from_rows(rows: Iterable[tuple[str, bytes]]) -> list[interaction_pb2.Interaction]:
    """The interactions (rows of id, body) that decode."""
    found = (decoded(interaction_pb2.Interaction, body, key) for key, body in rows)
    return [interaction for interaction in found if interaction is not None]


def side_effects_from_rows(rows: Iterable[tuple[Any, ...]]) -> list[run_event_pb2.SideEffect]:
    """A run's side-effect journal (rows of body, in order). An entry that does not decode still
    counts, as one the run cannot describe: skipping it could let a takeover repeat it."""
    journal = []
    for (body,) in rows:
        effect = decoded(run_event_pb2.SideEffect, bytes(body), "side-effect journal entry")
        journal.append(
            effect
            if effect is not None
            else run_event_pb2.SideEffect(description="an entry that could not be read back")
        )
    return journal


def _unreadable_run(run_id: str, kind: int, state: int, create_us: int) -> run_pb2.Run:
    log.error("stored run %s (state %d) does not decode: marked failed", run_id, state)
    run = run_pb2.Run(name=f"runs/{run_id}", state=run_pb2.RUN_STATE_FAILED)
    run.kind = kind  # type: ignore[assignment]
    run.create_time.FromMicroseconds(create_us)
    run.update_time.GetCurrentTime()
    run.end_time.GetCurrentTime()
    run.outcome.error_code = UNREADABLE_RUN
    run.outcome.error_message = "the stored record of this run could not be read back"
    return run
