"""An answer belongs to its run: an Interact stream answers only the questions of its own run.

Two interactive runs live at once over real gRPC; the stream of run B sends an answer and a
decision for run A's interactions. Both are refused (AnswerResult INTERACTION_OF_ANOTHER_RUN,
the stream goes on), run A's interactions stay pending, and each run still completes with its own
answers.
"""

from __future__ import annotations

from typing import Any

import grpc

from outrider.server.core.events.names import event_name
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import run_event_pb2 as rp
from tests.support.harness import Harness
from tests.support.outbox import Outbox
from tests.support.requests import automate_request

REFUSED = "INTERACTION_OF_ANOTHER_RUN"


def start() -> isv.InteractRequest:
    request = automate_request(steps=1, ask_input=True, ask_approval=True)
    return isv.InteractRequest(start=isv.InteractStart(automate=request.params))


def form_answer(request_id: str, value: str) -> isv.InteractRequest:
    field = ip.FieldValue(ref="E1", value=value)
    return isv.InteractRequest(form_data=isv.FormDataAnswer(request_id=request_id, fields=[field]))


def approval_answer(approval_id: str) -> isv.InteractRequest:
    return isv.InteractRequest(
        approval=isv.ApprovalAnswer(approval_id=approval_id, decision=rp.APPROVAL_DECISION_APPROVE)
    )


class Stream:
    """One Interact call read step by step; every event name is kept in order."""

    def __init__(self, harness: Harness) -> None:
        self.outbox = Outbox(start())
        self.call: Any = harness.interactions.Interact(self.outbox)
        self.names: list[str] = []
        # approvals asked, in order, whichever read met them: the run goes on while an answer's
        # result waits for its commit, so the next question may come before that result
        self.approvals: list[str] = []

    async def next_response(self) -> isv.InteractResponse:
        response = await self.call.read()
        assert response is not grpc.aio.EOF, f"the stream ended after {self.names}"
        if response.HasField("event"):
            self.names.append(event_name(response.event))
            if response.event.HasField("approval_requested"):
                self.approvals.append(response.event.approval_requested.approval_id)
        return response  # type: ignore[no-any-return]

    async def form_request_id(self) -> str:
        while True:
            event = (await self.next_response()).event
            if event.automate.HasField("interactive_form_data_request"):
                return event.automate.interactive_form_data_request.request_id

    async def approval_id(self) -> str:
        while not self.approvals:
            await self.next_response()
        return self.approvals.pop(0)

    async def answer_result(self) -> isv.AnswerResult:
        while not (response := await self.next_response()).HasField("answer_result"):
            pass
        return response.answer_result

    async def until_end(self) -> None:
        while (response := await self.call.read()) is not grpc.aio.EOF:
            if response.HasField("event"):
                self.names.append(event_name(response.event))


async def state_of(harness: Harness, interaction_id: str) -> int:
    reply = await harness.interactions.GetInteraction(
        isv.GetInteractionRequest(name=f"interactions/{interaction_id}")
    )
    return reply.interaction.state


async def test_a_stream_refuses_answers_for_another_runs_interactions(harness: Harness) -> None:
    a, b = Stream(harness), Stream(harness)
    input_a, input_b = await a.form_request_id(), await b.form_request_id()

    b.outbox.send(form_answer(input_a, "stolen@b.c"))
    refused = await b.answer_result()
    assert (refused.interaction_id, refused.accepted, refused.reason) == (input_a, False, REFUSED)
    assert "another run" in refused.message
    assert await state_of(harness, input_a) == ip.INTERACTION_STATE_PENDING

    b.outbox.send(form_answer(input_b, "b@b.c"))
    assert (await b.answer_result()).accepted
    a.outbox.send(form_answer(input_a, "a@b.c"))
    assert (await a.answer_result()).accepted
    approval_a, approval_b = await a.approval_id(), await b.approval_id()

    b.outbox.send(approval_answer(approval_a))
    refused = await b.answer_result()
    assert (refused.interaction_id, refused.accepted, refused.reason) == (
        approval_a,
        False,
        REFUSED,
    )
    assert await state_of(harness, approval_a) == ip.INTERACTION_STATE_PENDING

    for stream, approval in ((a, approval_a), (b, approval_b)):
        stream.outbox.send(approval_answer(approval))
        assert (await stream.answer_result()).accepted
        stream.outbox.close()
        await stream.until_end()
        assert stream.names[-2:] == ["complete", "done"]
        assert stream.names.count("input_resolved") == 1
        assert stream.names.count("approval_resolved") == 1
    assert sorted(i["E1"] for i in harness.agent.received_inputs) == ["a@b.c", "b@b.c"]
