"""The side-effect journal in the store (both backends): entries in order across attempts, gone
with their run; an entry a process cannot describe still counts; on PostgreSQL, a replica that
lost the run cannot add to the new owner's journal, and learns it before it would act."""

from __future__ import annotations

import pytest

from outrider.server.core.events.log import EventLog
from outrider.server.core.runs.side_effects import SideEffectJournal, SideEffectRefused
from outrider.server.core.secrets.redaction import Redactor
from outrider.server.core.storage import Store
from outrider.server.core.storage.rows import side_effects_from_rows
from outrider.v1 import run_event_pb2 as rp
from outrider.v1 import run_pb2
from tests.store.test_takeover import lose, running_on

SUBMIT = rp.SideEffect(
    kind=rp.SIDE_EFFECT_KIND_FORM_SUBMIT,
    method="POST",
    url="http://shop.test/order",
    description='submitted the form "Order"',
)


def journal_of(store: Store, run_id: str, attempt: int = 0) -> SideEffectJournal:
    log = EventLog(store, buffer_limit=10)
    last = store.last_events(run_id, 1)
    log.open(run_id, last[0].sequence if last else 0)  # as a takeover opens it
    earlier = store.side_effects(run_id)
    return SideEffectJournal(store, log, run_id, Redactor(), attempt, earlier)


async def test_entries_are_kept_in_order_across_attempts_and_go_with_the_run(
    store: Store,
) -> None:
    running_on(store, "ordered")
    first = journal_of(store, "ordered")
    await first.record(SUBMIT)
    first.note(rp.SideEffect(kind=rp.SIDE_EFFECT_KIND_DOWNLOAD, description="downloaded 'a.pdf'"))
    await first.settled()
    second = journal_of(store, "ordered", attempt=1)  # a takeover reads the journal
    assert [e.number for e in second.earlier] == [1, 2]
    await second.record(rp.SideEffect(kind=rp.SIDE_EFFECT_KIND_REQUEST, method="PUT"))
    stored = store.side_effects("ordered")
    assert [(e.number, e.attempt, e.kind) for e in stored] == [
        (1, 0, rp.SIDE_EFFECT_KIND_FORM_SUBMIT),
        (2, 0, rp.SIDE_EFFECT_KIND_DOWNLOAD),
        (3, 1, rp.SIDE_EFFECT_KIND_REQUEST),
    ]
    assert stored[0].url == SUBMIT.url and second.recorded == 1
    events = store.events_after("ordered", 0, 10)
    assert [e.side_effect.number for e in events] == [1, 2, 3]  # each is an event too
    run = store.get_run("ordered")
    assert run is not None
    run.state = run_pb2.RUN_STATE_SUCCEEDED
    store.save_run(run, "ordered")
    store.flush()
    assert store.delete_run("ordered") is not None
    assert store.side_effects("ordered") == []


async def test_a_secret_never_reaches_the_journal(store: Store) -> None:
    running_on(store, "secret")
    redactor = Redactor()
    redactor.add("hunter22-token")
    journal = SideEffectJournal(store, EventLog(store, 10), "secret", redactor)
    await journal.record(rp.SideEffect(url="http://shop.test/pay?token=hunter22-token"))
    assert "hunter22" not in store.side_effects("secret")[0].url


async def test_a_replica_that_lost_the_run_is_refused_before_it_acts(
    two_stores: tuple[Store, Store], postgres_url: str
) -> None:
    cut_off, survivor = two_stores
    running_on(cut_off, "moved")
    before = journal_of(cut_off, "moved")
    await before.record(SUBMIT)
    lose(cut_off, survivor, "moved", postgres_url)
    with pytest.raises(SideEffectRefused, match="another replica took this run over"):
        await before.record(rp.SideEffect(kind=rp.SIDE_EFFECT_KIND_REQUEST, method="POST"))
    assert [e.number for e in survivor.side_effects("moved")] == [1]
    after = journal_of(survivor, "moved", attempt=1)  # the new owner goes on numbering
    await after.record(rp.SideEffect(kind=rp.SIDE_EFFECT_KIND_UPLOAD))
    assert [(e.number, e.attempt) for e in survivor.side_effects("moved")] == [(1, 0), (2, 1)]


def test_an_entry_that_does_not_decode_still_counts() -> None:
    read = side_effects_from_rows([(SUBMIT.SerializeToString(),), (b"\xff\xff\xff",)])
    assert len(read) == 2 and read[0].url == SUBMIT.url
    assert "could not be read back" in read[1].description
