"""What an answer gets when its interaction is not open on this replica: the truth, whichever
replica it reaches and whether or not the replica that executed the run is still there.

A repeat of the accepted answer (a client unsure whether it was taken, retrying) is recognised by
the keyed digest the store keeps of every accepted answer (never its values), so any replica
accepts it as a harmless repeat. When the run was taken over after its replica was lost, the
question belonged to an attempt that is gone: the resumed run asks it again under a new id, and
an answer to the old one is told so, naming the new one (a form's values must be given again;
an approval given before the loss was carried over). A different answer is refused as one.

While the truth is about to change (the run's executor is gone and nobody took the run over yet,
or the resumed run has not asked again yet), a patient caller is told `Unsettled`: `answers`
waits a while and asks again."""

from __future__ import annotations

import hmac

from outrider.server.core.cluster.relay import ExecutedElsewhere
from outrider.server.core.errors import FailedPrecondition
from outrider.server.core.interactions.resolutions import id_of, refuse_closed
from outrider.server.core.names import run_id_from
from outrider.server.core.storage import ACTIVE_STATES, Store
from outrider.server.core.storage.contract import AnswerRecord
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import run_pb2

ASKED_AGAIN = "INTERACTION_ASKED_AGAIN"
_CHAIN = 20  # most links followed from a lost question to the newest asking of it


class Unsettled(Exception):
    """The verdict depends on a takeover under way: ask again shortly."""


def verdict(store: Store, stored: ip.Interaction, digest: bytes, patient: bool) -> None:
    """Returns when the answer (by its `digest`) repeats the one `stored` accepted, and raises
    why not otherwise. `patient`: raise Unsettled rather than answer while a takeover is under
    way (replicas sharing a store)."""
    if stored.state == ip.INTERACTION_STATE_PENDING:  # open on the replica executing the run
        raise ExecutedElsewhere(run_id_from(stored.run), stored.name)
    record = store.answer_record(id_of(stored)) or AnswerRecord(None, False, "")
    taken = record.digest is not None and hmac.compare_digest(record.digest, digest)
    if record.lost:
        _lost_verdict(store, stored, record, digest, patient)
        return
    if stored.state == ip.INTERACTION_STATE_RESOLVED and taken:
        if patient and _executor_gone(store, stored):
            raise Unsettled()  # its run is about to be taken over: answered once it is
        return
    refuse_closed(stored)


def _lost_verdict(
    store: Store, stored: ip.Interaction, record: AnswerRecord, digest: bytes, patient: bool
) -> None:
    """For a question the run's lost attempt asked."""
    taken = record.digest is not None and hmac.compare_digest(record.digest, digest)
    again = _newest(store, record.asked_again_as)
    if again is not None:
        newest = store.answer_record(id_of(again))
        if newest is not None and newest.digest is not None:
            if hmac.compare_digest(newest.digest, digest):
                return  # the question asked again took this answer (an approval carried over)
    run = store.get_run(run_id_from(stored.run))
    resumed = run is not None and run.state in ACTIVE_STATES
    if again is None and resumed and patient:
        raise Unsettled()  # resumed: it may ask again in a moment
    if taken and again is None:
        return  # taken, and the run did not ask again (yet)
    if record.digest is not None and not taken:
        where = f"; the run restarted and asks again as {again.name}" if again else ""
        raise FailedPrecondition(
            f"{stored.name} was already answered differently, before the replica executing its "
            f"run was lost{where}",
            "INTERACTION_ALREADY_RESOLVED",
            {"askedAgainAs": again.name} if again else None,
        )
    if again is not None:
        raise asked_again(stored, again, taken)
    if resumed:
        raise FailedPrecondition(
            f"{stored.name} was closed when the replica executing its run was lost; the run "
            "was resumed and has not asked it again yet",
            "INTERACTION_CANCELLED",
        )
    raise FailedPrecondition(
        f"{stored.name} was still open when the replica executing its run was lost (an answer "
        "given just before may have been lost with that replica); the run was not resumed "
        f"({_outcome(run)})",
        "INTERACTION_CANCELLED",
    )


def asked_again(stored: ip.Interaction, again: ip.Interaction, taken: bool) -> FailedPrecondition:
    """The refusal of an answer to a question the run asks again as `again` since."""
    if taken:
        what = "your answer to it was taken, but the replica executing its run was lost"
    else:
        what = (
            "it was still open when the replica executing its run was lost (an answer given "
            "just before may have been lost with that replica)"
        )
    return FailedPrecondition(
        f"{stored.name}: {what}; the run restarted and asks again as {again.name}",
        ASKED_AGAIN,
        {"askedAgainAs": again.name},
    )


def _newest(store: Store, first: str) -> ip.Interaction | None:
    """The newest asking of a question, following its links from `first` ("": none)."""
    found = None
    for _ in range(_CHAIN):
        if not first:
            break
        found = store.get_interaction(first) or found
        record = store.answer_record(first)
        first = record.asked_again_as if record is not None else ""
    return found


def _executor_gone(store: Store, stored: ip.Interaction) -> bool:
    """The question's run is active, and no live replica executes it."""
    run_id = run_id_from(stored.run)
    if store.executor_address(run_id) is not None:
        return False
    run = store.get_run(run_id)
    return run is not None and run.state in ACTIVE_STATES


def _outcome(run: run_pb2.Run | None) -> str:
    if run is None:
        return "it was deleted"
    state = run_pb2.RunState.Name(run.state).removeprefix("RUN_STATE_")
    code = f" {run.outcome.error_code}" if run.outcome.error_code else ""
    return f"it ended {state}{code}"
