"""The webhook outbox of the `Store` contract, on SQLite and PostgreSQL alike: a message is
written only for endpoints that want it, deliveries are claimed with leases (once each, even by
two replicas at the same instant), attempts are recorded, endpoints disabled with their notice."""

from __future__ import annotations

import asyncio
import dataclasses

from outrider.server.core import clock
from outrider.server.core.storage import Store
from outrider.server.core.storage.webhook_rows import (
    A2A,
    DELIVERED,
    FAILED,
    PENDING,
    AttemptRecord,
    Credentials,
    EndpointRow,
    OutboxMessage,
)
from outrider.v1 import run_pb2

S = 1_000_000


def endpoint(endpoint_id: str, tenant: str = "acme", **changes: object) -> EndpointRow:
    row = EndpointRow(
        endpoint_id,
        tenant,
        f"https://example.com/{endpoint_id}",
        create_us=clock.now_us(),
        update_us=clock.now_us(),
        credentials=Credentials((("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", 0),)),
    )
    return dataclasses.replace(row, **changes)  # type: ignore[arg-type]


def message(
    message_id: str, kind: str = "run.ended", tenant: str = "acme", run_id: str | None = None
) -> OutboxMessage:
    return OutboxMessage(message_id, tenant, kind, clock.now_us(), '{"x":1}', run_id)


async def deliveries_to(store: Store, endpoint_id: str) -> list[str]:
    await store.committed()
    return sorted(d.message.id for d in store.list_deliveries(endpoint_id, None, 100))


async def test_a_message_goes_to_the_endpoints_that_want_it(store: Store) -> None:
    store.save_endpoint(endpoint("everything"))
    store.save_endpoint(endpoint("endings", event_types=("run.ended",)))
    store.save_endpoint(endpoint("questions", event_types=("question.waiting",)))
    store.save_endpoint(endpoint("off", enabled=False))
    store.save_endpoint(endpoint("elsewhere", tenant="other"))
    store.save_endpoint(endpoint("onetask", kind=A2A, run_id="run1", config_id="c"))
    store.add_message(message("msg_ended"))
    store.add_message(message("msg_asked", "question.waiting", run_id="run1"))
    store.add_message(message("msg_nobody", tenant="nobody"))
    assert await deliveries_to(store, "everything") == ["msg_asked", "msg_ended"]
    assert await deliveries_to(store, "endings") == ["msg_ended"]
    assert await deliveries_to(store, "questions") == ["msg_asked"]
    assert await deliveries_to(store, "off") == [] and await deliveries_to(store, "elsewhere") == []
    assert await deliveries_to(store, "onetask") == ["msg_asked"]
    assert store.outbox_backlog() == 5
    listed = store.list_endpoints("acme", "webhook", None, None, 10)
    assert [row.id for row in listed] == ["everything", "endings", "questions", "off"]
    got = store.get_endpoint("endings", "acme")
    assert got is not None and got.event_types == ("run.ended",) and got.credentials.secrets
    assert store.get_endpoint("endings", "other") is None


async def test_the_store_never_says_no_to_a_message_an_endpoint_wants(
    store: Store, store_backend: str
) -> None:
    """Through every change of an endpoint, `wants_message` is true of each message that
    `add_message` then writes; SQLite, which owns its endpoints, also says no to the others."""
    asked = [
        ("acme", "run.ended", None),
        ("acme", "question.waiting", "run1"),
        ("acme", "question.waiting", "run2"),
        ("other", "run.ended", None),
    ]
    changes = [
        lambda: None,
        lambda: store.save_endpoint(endpoint("a", event_types=("run.ended",))),
        lambda: store.save_endpoint(
            endpoint(
                "push", kind=A2A, run_id="run1", config_id="c", event_types=("question.waiting",)
            )
        ),
        lambda: store.save_endpoint(endpoint("a", event_types=("question.waiting",))),
        lambda: store.disable_endpoint("a", "failing", clock.now_us(), None),
        lambda: store.save_endpoint(endpoint("a")),  # enabled again, for every type
        lambda: store.delete_endpoint("a"),
        lambda: store.delete_endpoint("push"),
    ]
    answers = []
    for number, change in enumerate(changes):
        change()
        for tenant, kind, run_id in asked:
            said = store.wants_message(tenant, kind, run_id)
            message_id = f"msg_{number}_{tenant}_{kind}_{run_id}"
            store.add_message(message(message_id, kind, tenant, run_id))
            await store.committed()
            written = any(store.get_delivery(e, message_id) for e in ("a", "push"))
            assert said or not written, (number, tenant, kind, run_id)
            answers.append((said, written))
    if store_backend == "sqlite":
        assert all(said == written for said, written in answers)
    assert sum(written for _, written in answers) == 10


async def test_a_claim_holds_deliveries_for_its_lease_and_an_attempt_is_recorded(
    store: Store,
) -> None:
    store.save_endpoint(endpoint("e1"))
    store.add_message(message("msg_1"))
    await store.committed()
    now = clock.now_us()
    first = await store.claim_deliveries("claim-a", now, 30 * S, 10)
    assert [c.delivery.message.id for c in first] == ["msg_1"]
    assert first[0].endpoint.url == "https://example.com/e1" and first[0].delivery.attempts == 0
    assert await store.claim_deliveries("claim-b", now + S, 30 * S, 10) == []  # held
    again = await store.claim_deliveries("claim-c", now + 31 * S, 30 * S, 10)  # lease ran out
    assert [c.claim for c in again] == ["claim-c"]
    failed = AttemptRecord("msg_1", "e1", "claim-a", PENDING, now, now, 500, "answered 500", 7)
    store.finish_delivery(failed, answered=False)  # the stale claim: nothing recorded
    store.finish_delivery(dataclasses.replace(failed, claim="claim-c"), answered=False)
    await store.committed()
    row = store.get_delivery("e1", "msg_1")
    assert row is not None and (row.attempts, row.last_code, row.last_error) == (
        1,
        500,
        "answered 500",
    )
    assert row.state == PENDING and row.last_latency_us == 7
    failing = store.get_endpoint("e1")
    assert failing is not None and failing.failing_since_us == now
    retry = await store.claim_deliveries("claim-d", now + 32 * S, 30 * S, 10)
    assert retry[0].endpoint.failing_since_us == now and retry[0].delivery.attempts == 1
    done = AttemptRecord("msg_1", "e1", "claim-d", DELIVERED, now, now, 204, "", 5)
    store.finish_delivery(done, answered=True)
    await store.committed()
    endpoint_now = store.get_endpoint("e1")
    assert endpoint_now is not None and endpoint_now.failing_since_us is None
    assert store.outbox_backlog() == 0


async def test_disabling_gives_up_pending_deliveries_and_tells_the_other_endpoints(
    store: Store,
) -> None:
    store.save_endpoint(endpoint("broken"))
    store.save_endpoint(endpoint("watcher", event_types=("endpoint.disabled",)))
    store.add_message(message("msg_1"))
    await store.committed()
    now = clock.now_us()
    notice = message("msg_broken_off0", "endpoint.disabled")
    store.disable_endpoint("broken", "the endpoint answered 410 Gone", now, notice)
    store.disable_endpoint("broken", "the endpoint answered 410 Gone", now, notice)  # a repeat
    await store.committed()
    broken = store.get_endpoint("broken")
    assert broken is not None and not broken.enabled
    assert broken.disabled_reason == "the endpoint answered 410 Gone"
    given_up = store.get_delivery("broken", "msg_1")
    assert given_up is not None and given_up.state == FAILED
    assert await deliveries_to(store, "watcher") == ["msg_broken_off0"]
    assert await deliveries_to(store, "broken") == ["msg_1"]  # not the notice of its own end
    store.resend_delivery("broken", "msg_1", now)
    await store.committed()
    assert await store.claim_deliveries("c", now + S, S, 10) != []  # the watcher's notice
    assert all(c.endpoint.id == "watcher" for c in await store.claim_deliveries("d", now, S, 9))


async def test_deliveries_list_newest_first_and_old_finished_ones_are_forgotten(
    store: Store,
) -> None:
    store.save_endpoint(endpoint("e"))
    for number in range(3):
        store.add_message(dataclasses.replace(message(f"msg_{number}"), create_us=number + 1))
    await store.committed()
    listed = store.list_deliveries("e", None, 2)
    assert [d.message.id for d in listed] == ["msg_2", "msg_1"]
    assert [d.message.id for d in store.list_deliveries("e", (2, "msg_1"), 5)] == ["msg_0"]
    claimed = await store.claim_deliveries("c", clock.now_us(), S, 10)
    for item in claimed:
        done = AttemptRecord(item.delivery.message.id, "e", "c", DELIVERED, 0, 0, 200, "", 1)
        store.finish_delivery(done, answered=True)
    await store.committed()
    assert store.forget_deliveries(3) == 2  # made before instant 3: msg_0 and msg_1
    assert [d.message.id for d in store.list_deliveries("e", None, 5)] == ["msg_2"]


async def test_two_replicas_claiming_at_once_get_each_delivery_once(
    two_stores: tuple[Store, Store],
) -> None:
    first = two_stores[0]
    first.save_endpoint(endpoint("e"))
    for number in range(40):
        first.add_message(message(f"msg_{number:02}"))
    await first.committed()
    now = clock.now_us()
    claims = await asyncio.gather(
        *(store.claim_deliveries(f"c{i}", now, 30 * S, 7) for i, store in enumerate(2 * two_stores))
    )
    ids = [c.delivery.message.id for batch in claims for c in batch]
    assert len(ids) == len(set(ids)) == 28


async def test_a_replica_that_lost_a_run_writes_no_message_about_it(
    two_stores: tuple[Store, Store],
) -> None:
    owner, other = two_stores
    owner.save_endpoint(endpoint("e"))
    run = run_pb2.Run(name="runs/run1", kind=run_pb2.RUN_KIND_AUTOMATE, tenant="acme")
    owner.save_run(run, "run1")
    await owner.committed()
    other.add_message(message("msg_stale", run_id="run1"), fenced=True)
    owner.add_message(message("msg_owned", run_id="run1"), fenced=True)
    await other.committed()
    assert await deliveries_to(owner, "e") == ["msg_owned"]


async def test_a_state_change_and_its_message_commit_together(
    two_stores: tuple[Store, Store],
) -> None:
    writer, reader = two_stores
    writer.save_endpoint(endpoint("e"))
    await writer.committed()
    run = run_pb2.Run(name="runs/run2", kind=run_pb2.RUN_KIND_AUTOMATE, tenant="acme")
    with writer.together():
        writer.save_run(run, "run2")
        writer.add_message(message("msg_ended", run_id="run2"), fenced=True)
        marks_inside = writer.commit_marks()[0]
    assert writer.commit_marks()[0] == marks_inside  # the held writes were counted already
    await writer.committed()
    assert reader.get_run("run2") is not None
    assert await deliveries_to(reader, "e") == ["msg_ended"]
