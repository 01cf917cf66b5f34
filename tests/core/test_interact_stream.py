"""The bidirectional Interact stream: start or attach, answer, decide and cancel on one stream."""

from __future__ import annotations

import grpc

from outrider.server.core.events.names import event_name
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import params_pb2, run_service_pb2
from outrider.v1 import run_event_pb2 as rp
from tests.support.harness import Harness, rich_error
from tests.support.outbox import Outbox
from tests.support.requests import automate_request


def start(**plan: object) -> isv.InteractRequest:
    request = automate_request(**plan)
    return isv.InteractRequest(start=isv.InteractStart(automate=request.params))


async def test_form_answer_and_approval_on_one_stream(harness: Harness) -> None:
    outbox = Outbox(start(steps=1, ask_input=True, ask_approval=True))
    seen: list[str] = []
    results: list[isv.AnswerResult] = []
    async for response in harness.interactions.Interact(outbox):
        if response.HasField("answer_result"):
            results.append(response.answer_result)
            continue
        if not response.HasField("event"):
            continue
        seen.append(event_name(response.event))
        automate = response.event.automate
        if automate.HasField("interactive_form_data_request"):
            request_id = automate.interactive_form_data_request.request_id
            outbox.send(
                isv.InteractRequest(
                    form_data=isv.FormDataAnswer(
                        request_id=request_id, fields=[ip.FieldValue(ref="E1", value="a@b.c")]
                    )
                )
            )
            outbox.send(
                isv.InteractRequest(
                    form_data=isv.FormDataAnswer(
                        request_id=request_id, fields=[ip.FieldValue(ref="E1", value="other")]
                    )
                )
            )
        if response.event.HasField("approval_requested"):
            outbox.send(
                isv.InteractRequest(
                    approval=isv.ApprovalAnswer(
                        approval_id=response.event.approval_requested.approval_id,
                        decision=rp.APPROVAL_DECISION_APPROVE,
                        scope=rp.APPROVAL_SCOPE_ALWAYS,
                    )
                )
            )
    outbox.close()
    assert seen[-2:] == ["complete", "done"]
    assert "input_resolved" in seen and "approval_resolved" in seen
    assert [(r.accepted, r.reason) for r in results] == [
        (True, ""),
        (False, "INTERACTION_ALREADY_RESOLVED"),
        (True, ""),
    ]
    assert harness.agent.received_inputs == [{"E1": "a@b.c"}]


async def test_cancel_on_the_stream_ends_the_run(harness: Harness) -> None:
    outbox = Outbox(start(steps=1, hold=True))
    names: list[str] = []
    async for response in harness.interactions.Interact(outbox):
        if response.HasField("event"):
            names.append(event_name(response.event))
            if len(names) == 1:
                outbox.send(isv.InteractRequest(cancel=isv.InteractCancel(reason="stop")))
    outbox.close()
    assert names[-2:] == ["complete", "done"]


async def test_attach_replays_after_a_sequence(harness: Harness) -> None:
    run = (await harness.runs.CreateRun(_create(steps=2))).run
    outbox = Outbox(isv.InteractRequest(attach=isv.InteractAttach(run=run.name, after_sequence=2)))
    sequences = [
        r.event.sequence async for r in harness.interactions.Interact(outbox) if r.HasField("event")
    ]
    outbox.close()
    assert sequences[0] == 3 and sequences == list(range(3, sequences[-1] + 1))


async def test_first_message_must_start_or_attach(harness: Harness) -> None:
    outbox = Outbox(isv.InteractRequest(cancel=isv.InteractCancel()))
    outbox.close()
    try:
        async for _ in harness.interactions.Interact(outbox):
            pass
    except grpc.aio.AioRpcError as error:
        details = rich_error(error)
        assert details.code == grpc.StatusCode.INVALID_ARGUMENT
        assert "action" in details.violations
    else:
        raise AssertionError("expected INVALID_ARGUMENT")


async def test_start_with_bad_params_names_the_field(harness: Harness) -> None:
    outbox = Outbox(
        isv.InteractRequest(start=isv.InteractStart(automate=params_pb2.AutomateParams(task="")))
    )
    outbox.close()
    try:
        async for _ in harness.interactions.Interact(outbox):
            pass
    except grpc.aio.AioRpcError as error:
        assert "start.automate.task" in rich_error(error).violations
    else:
        raise AssertionError("expected INVALID_ARGUMENT")


def _create(**plan: object) -> run_service_pb2.CreateRunRequest:
    request = automate_request(**plan)
    return run_service_pb2.CreateRunRequest(automate=request.params)
