"""RunOptions.resume_after_side_effects on the REST edge: the body's "resumeAfterSideEffects"
text; "ask" for a run nobody can answer refused (400 on REST, INVALID_ARGUMENT on gRPC); the
side_effect event sent only to callers who opted in; the terminal shape of RESUME_UNSAFE in the
Tabstack wire format (a code of Tabstack's own, the message saying why)."""

from __future__ import annotations

import json

import grpc
import httpx
import pytest

from outrider.server.core.events.names import payload_event_name
from outrider.server.core.runs.resume_gate import unsafe_ending
from outrider.server.core.runs.terminal import RunStats, terminal_payloads
from outrider.server.rest_edge import bodies, sse
from outrider.v1 import params_pb2, run_event_pb2, run_pb2, run_service_pb2
from tests.rest.conftest import RestFactory
from tests.support.harness import Harness, rich_error

SUBMIT = run_event_pb2.SideEffect(
    kind=run_event_pb2.SIDE_EFFECT_KIND_FORM_SUBMIT,
    number=1,
    iteration_id="step-2",
    action="click",
    method="POST",
    url="https://shop.test/order",
    description='submitted the form "Order"',
)


def test_the_rest_body_names_the_choice() -> None:
    for text, choice in (
        ("ask", params_pb2.RESUME_AFTER_SIDE_EFFECTS_ASK),
        ("end", params_pb2.RESUME_AFTER_SIDE_EFFECTS_END),
        ("repeat", params_pb2.RESUME_AFTER_SIDE_EFFECTS_REPEAT),
    ):
        spec = bodies.automate_spec({"task": "t", "options": {"resumeAfterSideEffects": text}})
        assert spec.options.resume_after_side_effects == choice
    assert bodies.automate_spec({"task": "t"}).options.resume_after_side_effects == 0


async def test_ask_for_a_run_nobody_can_answer_is_a_400(make_rest: RestFactory) -> None:
    case = await make_rest()
    ask = {"task": "t", "interactive": True, "options": {"resumeAfterSideEffects": "ask"}}
    async with httpx.AsyncClient(base_url=case.origin, timeout=10) as http:
        unknown = await http.post(
            "/v1/automate", json={"task": "t", "options": {"resumeAfterSideEffects": "maybe"}}
        )
        unseen = await http.post("/v1/automate", json=ask)  # without the approval-events header
    for refused in (unknown, unseen):
        assert refused.status_code == 400, refused.text
    assert unknown.json()["error"]["fieldViolations"][0]["field"] == (
        "options.resumeAfterSideEffects"
    )
    [violation] = unseen.json()["error"]["fieldViolations"]
    assert violation["field"] == "options.resume_after_side_effects"
    assert "x-outrider-approval-events" in violation["description"]


async def test_ask_for_a_non_interactive_run_is_invalid_on_grpc(harness: Harness) -> None:
    request = run_service_pb2.CreateRunRequest(
        automate=params_pb2.AutomateParams(task="t"),
        options=params_pb2.RunOptions(
            resume_after_side_effects=params_pb2.RESUME_AFTER_SIDE_EFFECTS_ASK
        ),
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await harness.runs.CreateRun(request)
    error = rich_error(caught.value)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert list(error.violations) == ["options.resume_after_side_effects"]


def test_side_effect_is_one_of_our_own_sse_events() -> None:
    event = run_event_pb2.RunEvent(run="runs/x", sequence=7, side_effect=SUBMIT)
    block = sse.event_block(event).decode()
    assert block.startswith("id: 7\nevent: side_effect\ndata: ")
    data = json.loads(block.split("data: ", 1)[1])
    assert data["kind"] == "form_submit" and data["method"] == "POST"
    assert "side_effect" not in sse.TABSTACK_ARMS  # sent only to callers who opted in


def test_resume_unsafe_keeps_tabstacks_terminal_shape() -> None:
    ending = unsafe_ending([SUBMIT])
    stats = RunStats(0, 2, 1)
    complete, done = terminal_payloads(run_pb2.RUN_KIND_AUTOMATE, {"side_effect"}, ending, stats)
    event = run_event_pb2.RunEvent(run="runs/x", sequence=9)
    event.automate.CopyFrom(complete)
    block = sse.event_block(event).decode()
    assert block.startswith("id: 9\nevent: complete\n")
    data = json.loads(block.split("data: ", 1)[1])
    assert data["success"] is False
    assert data["error"]["code"] == "TASK_FAILED"  # Tabstack's closed set of codes
    assert data["error"]["message"].startswith("RESUME_UNSAFE: ")
    assert (
        'submitted the form "Order" (POST https://shop.test/order) at step-2'
        in (data["error"]["message"])
    )
    assert ending.code == "RESUME_UNSAFE"  # the run's outcome.errorCode
    assert payload_event_name(done) == "done"
