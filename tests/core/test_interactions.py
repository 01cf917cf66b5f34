"""Interactions: one resolution each, expiry, refusals with reasons, values kept out of storage."""

from __future__ import annotations

import grpc
import pytest

from outrider.server.core.events.names import event_name
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import run_event_pb2 as rp
from outrider.v1 import run_pb2, run_service_pb2
from tests.conftest import HarnessFactory
from tests.support.harness import Harness, rich_error
from tests.support.requests import automate_request, read_rest

SECRET = "s3cret-value-4711@example.com"


async def until_event(call: grpc.aio.UnaryStreamCall, name: str) -> rp.RunEvent:
    while (response := await call.read()) is not grpc.aio.EOF:
        if response.HasField("event") and event_name(response.event) == name:
            return response.event
    raise AssertionError(f"stream ended without {name}")


def submit(request_id: str, value: str = SECRET, cancelled: bool = False) -> isv.SubmitInputRequest:
    fields = [] if cancelled else [ip.FieldValue(ref="E1", value=value)]
    return isv.SubmitInputRequest(
        name=f"interactions/{request_id}", fields=fields, cancelled=cancelled
    )


async def refusal(coro: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await coro  # type: ignore[misc]
    error = rich_error(caught.value)
    return error.code, error.reason


async def test_answer_reaches_the_agent_and_never_the_store(harness: Harness) -> None:
    call = harness.runs.Automate(automate_request(steps=1, ask_input=True))
    event = await until_event(call, "interactive:form_data:request")
    request_id = event.automate.interactive_form_data_request.request_id
    run = (await harness.runs.GetRun(run_service_pb2.GetRunRequest(name=event.run))).run
    assert run.state == run_pb2.RUN_STATE_INPUT_REQUIRED
    answered = (await harness.interactions.SubmitInput(submit(request_id))).interaction
    assert answered.state == ip.INTERACTION_STATE_RESOLVED and not answered.declined
    rest = await read_rest(call)
    resolved = next(e.input_resolved for e in rest if e.HasField("input_resolved"))
    assert resolved.submitted and list(resolved.refs) == ["E1"]
    assert harness.agent.received_inputs == [{"E1": SECRET}]
    harness.server.store.flush()
    stored = b"".join(
        p.read_bytes() for p in harness.server.settings.data_dir.rglob("*") if p.is_file()
    )
    assert SECRET.encode() not in stored
    assert all(SECRET not in str(e) for e in rest)


async def test_identical_repeat_succeeds_and_a_different_second_answer_is_refused(
    harness: Harness,
) -> None:
    call = harness.runs.Automate(automate_request(steps=1, ask_input=True))
    event = await until_event(call, "interactive:form_data:request")
    request_id = event.automate.interactive_form_data_request.request_id
    await harness.interactions.SubmitInput(submit(request_id))
    repeat = (await harness.interactions.SubmitInput(submit(request_id))).interaction
    assert repeat.state == ip.INTERACTION_STATE_RESOLVED
    code, reason = await refusal(harness.interactions.SubmitInput(submit(request_id, "other")))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INTERACTION_ALREADY_RESOLVED")
    assert harness.agent.received_inputs == [{"E1": SECRET}]  # delivered exactly once
    await read_rest(call)


async def test_expiry_declines_for_the_agent_and_refuses_a_late_answer(
    make_harness: HarnessFactory,
) -> None:
    harness = await make_harness(interaction_ttl=0.3)
    call = harness.runs.Automate(automate_request(steps=1, ask_input=True))
    event = await until_event(call, "interactive:form_data:request")
    request_id = event.automate.interactive_form_data_request.request_id
    status = await until_event(call, "agent:status")
    assert status.automate.agent_status.message == "input declined (RESOLUTION_SOURCE_EXPIRED)"
    code, reason = await refusal(harness.interactions.SubmitInput(submit(request_id)))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INTERACTION_EXPIRED")
    got = (
        await harness.interactions.GetInteraction(
            isv.GetInteractionRequest(name=f"interactions/{request_id}")
        )
    ).interaction
    assert got.state == ip.INTERACTION_STATE_EXPIRED
    assert harness.agent.received_inputs == []
    await read_rest(call)


async def test_decline_is_an_answer(harness: Harness) -> None:
    call = harness.runs.Automate(automate_request(steps=1, ask_input=True))
    event = await until_event(call, "interactive:form_data:request")
    request_id = event.automate.interactive_form_data_request.request_id
    declined = (
        await harness.interactions.SubmitInput(submit(request_id, cancelled=True))
    ).interaction
    assert declined.declined
    status = await until_event(call, "agent:status")
    assert status.automate.agent_status.message == "input declined (RESOLUTION_SOURCE_CALLER)"
    await read_rest(call)


async def test_answer_with_unknown_or_missing_fields_is_invalid(harness: Harness) -> None:
    call = harness.runs.Automate(automate_request(steps=1, ask_input=True))
    event = await until_event(call, "interactive:form_data:request")
    request_id = event.automate.interactive_form_data_request.request_id
    bad = isv.SubmitInputRequest(name=request_id, fields=[ip.FieldValue(ref="E77", value="x")])
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await harness.interactions.SubmitInput(bad)
    error = rich_error(caught.value)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert set(error.violations) == {"fields[0].ref", "fields"}
    still = await harness.interactions.GetInteraction(isv.GetInteractionRequest(name=request_id))
    assert still.interaction.state == ip.INTERACTION_STATE_PENDING  # nothing was consumed
    await harness.interactions.SubmitInput(submit(request_id))
    await read_rest(call)


async def test_approval_decided_by_the_unary_call(harness: Harness) -> None:
    call = harness.runs.Automate(automate_request(steps=1, ask_approval=True))
    event = await until_event(call, "approval_requested")
    approval = event.approval_requested
    assert approval.reason and approval.action == "submit" and approval.HasField("expire_time")
    run = (await harness.runs.GetRun(run_service_pb2.GetRunRequest(name=event.run))).run
    assert run.state == run_pb2.RUN_STATE_APPROVAL_REQUIRED
    listed = (
        await harness.interactions.ListInteractions(isv.ListInteractionsRequest())
    ).interactions
    assert [i.name for i in listed] == [f"interactions/{approval.approval_id}"]
    decide = isv.DecideApprovalRequest(
        name=approval.approval_id, decision=rp.APPROVAL_DECISION_REJECT, reason="not today"
    )
    decided = (await harness.interactions.DecideApproval(decide)).interaction
    assert decided.decision == rp.APPROVAL_DECISION_REJECT
    await harness.interactions.DecideApproval(decide)  # identical repeat: fine
    decide.decision = rp.APPROVAL_DECISION_APPROVE
    code, reason = await refusal(harness.interactions.DecideApproval(decide))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INTERACTION_ALREADY_RESOLVED")
    rest = await read_rest(call)
    resolved = next(e.approval_resolved for e in rest if e.HasField("approval_resolved"))
    assert resolved.decision == rp.APPROVAL_DECISION_REJECT and resolved.reason == "not today"
    assert any(e.automate.agent_status.message == "approval APPROVAL_DECISION_REJECT" for e in rest)
    assert (
        await harness.interactions.ListInteractions(isv.ListInteractionsRequest())
    ).interactions == []


async def test_answering_the_wrong_kind_or_an_unknown_id(harness: Harness) -> None:
    call = harness.runs.Automate(automate_request(steps=1, ask_approval=True))
    event = await until_event(call, "approval_requested")
    approval = event.approval_requested
    code, reason = await refusal(harness.interactions.SubmitInput(submit(approval.approval_id)))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INTERACTION_KIND_MISMATCH")
    code, _ = await refusal(harness.interactions.SubmitInput(submit("0123456789abcdef")))
    assert code == grpc.StatusCode.NOT_FOUND
    code, _ = await refusal(harness.interactions.SubmitInput(submit("not an id!")))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=event.run))
    got = await harness.interactions.GetInteraction(
        isv.GetInteractionRequest(name=approval.approval_id)
    )
    assert got.interaction.state == ip.INTERACTION_STATE_CANCELLED
    code, reason = await refusal(
        harness.interactions.DecideApproval(
            isv.DecideApprovalRequest(
                name=approval.approval_id, decision=rp.APPROVAL_DECISION_APPROVE
            )
        )
    )
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INTERACTION_CANCELLED")
