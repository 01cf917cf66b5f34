"""The proto -> Tabstack JSON converter against the official SDK's models: every event type,
every arm of every union, field names in the SDK's casing, numbers as numbers."""

from __future__ import annotations

import json

import pytest
from pydantic import TypeAdapter

from outrider.server.core.events.names import payload_event_name
from outrider.server.rest_edge.wire import to_json
from outrider.v1 import ai_generation_pb2 as ag
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import research_events_pb2 as re_pb
from outrider.v1 import run_event_pb2, run_pb2
from tests.rest.catalogue import AUTOMATE_ARMS, RESEARCH_ARMS, VARIANTS, example
from tests.rest.sdk_models import AUTOMATE, RESEARCH, validate


def _name(union: type[ae.AutomateEvent] | type[re_pb.ResearchEvent], arm: str) -> str:
    message = union()
    getattr(message, arm).SetInParent()
    return payload_event_name(message)


@pytest.mark.parametrize("arm", AUTOMATE_ARMS)
def test_every_automate_event_validates_against_the_sdk(arm: str) -> None:
    for variant in range(VARIANTS):
        data = json.loads(json.dumps(to_json(example(ae.AutomateEvent, arm, variant))))
        validate(AUTOMATE, _name(ae.AutomateEvent, arm), data)


@pytest.mark.parametrize("arm", RESEARCH_ARMS)
def test_every_research_event_validates_against_the_sdk(arm: str) -> None:
    for variant in range(VARIANTS):
        data = json.loads(json.dumps(to_json(example(re_pb.ResearchEvent, arm, variant))))
        validate(RESEARCH, _name(re_pb.ResearchEvent, arm), data)


def test_populated_fields_survive_into_the_sdk_models() -> None:
    data = to_json(example(ae.AutomateEvent, "agent_step"))
    model = validate(AUTOMATE, "agent:step", data)
    assert model.data.iteration_id == "iteration_id-0"  # type: ignore[attr-defined]
    assert model.data.current_iteration == 7  # type: ignore[attr-defined]


def test_defaults_of_fields_without_presence_are_still_written() -> None:
    data = to_json(ae.AgentProcessing(iteration_id="i", operation="op"))
    assert data == {"hasScreenshot": False, "iterationId": "i", "operation": "op", "timestamp": 0.0}
    assert to_json(ae.TaskCompleted(iteration_id="i")) == {"iterationId": "i", "timestamp": 0.0}


def test_enums_are_their_wire_literals_and_unions_are_discriminated() -> None:
    generation = ag.AiGeneration(
        finish_reason=ag.FINISH_REASON_CONTENT_FILTER,
        messages=[
            ag.ModelMessage(user=ag.UserMessage(text="hi")),
            ag.ModelMessage(
                assistant=ag.AssistantMessage(
                    parts=ag.AssistantContentParts(
                        parts=[ag.AssistantContentPart(tool_call=ag.ToolCallPart(tool_name="t"))]
                    )
                )
            ),
        ],
    )
    data = to_json(generation)
    assert data["finishReason"] == "content-filter"
    assert data["messages"][0] == {"role": "user", "content": "hi"}
    part = data["messages"][1]["content"][0]
    assert part["type"] == "tool-call" and part["toolName"] == "t"


def test_integers_are_json_numbers_and_timestamps_epoch_milliseconds() -> None:
    run = run_pb2.Run(name="runs/abc", last_sequence=2**40)
    run.create_time.FromMilliseconds(1_700_000_000_123)
    data = to_json(run)
    assert data["lastSequence"] == 2**40 and isinstance(data["lastSequence"], int)
    assert data["createTime"] == 1_700_000_000_123.0
    assert to_json(ae.AgentStep(current_iteration=3))["currentIteration"] == 3


def test_our_own_events_use_the_same_rules() -> None:
    resolved = run_event_pb2.ApprovalResolved(
        approval_id="a1",
        decision=run_event_pb2.APPROVAL_DECISION_APPROVE,
        scope=run_event_pb2.APPROVAL_SCOPE_ALWAYS,
        source=run_event_pb2.RESOLUTION_SOURCE_CALLER,
        resolved_by="ops-bot",
    )
    assert to_json(resolved) == {
        "approvalId": "a1",
        "decision": "approve",
        "scope": "always",
        "reason": "",
        "source": "caller",
        "resolvedBy": "ops-bot",
    }


def test_the_adapters_are_the_sdk_unions() -> None:
    assert isinstance(AUTOMATE, TypeAdapter) and isinstance(RESEARCH, TypeAdapter)
