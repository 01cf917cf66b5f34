"""The outrider.v1 contract: buf lint clean, generated code current, the seed's unions mirrored."""

from __future__ import annotations

import filecmp
import re
import subprocess
from pathlib import Path

import pytest
from google.protobuf.descriptor import Descriptor, EnumDescriptor

from outrider.v1 import (
    ai_generation_pb2,
    automate_events_pb2,
    options_pb2,
    research_events_pb2,
)
from tests.support.harness import REPO_ROOT

SEED = REPO_ROOT.parent / "shared" / "seeds" / "000_9cfbb463157c2cb8.txt"

# The /v1/automate and /v1/research event names of the Tabstack reference (seed 000).
AUTOMATE_EVENTS = {
    "agent:action",
    "agent:extracted",
    "agent:processing",
    "agent:reasoned",
    "agent:status",
    "agent:step",
    "agent:waiting",
    "ai:generation",
    "ai:generation:error",
    "browser:action_completed",
    "browser:action_started",
    "browser:navigated",
    "browser:reconnected",
    "browser:screenshot_captured",
    "browser:screenshot_captured_image",
    "cdp:endpoint_connected",
    "cdp:endpoint_cycle",
    "complete",
    "done",
    "error",
    "interactive:form_data:error",
    "interactive:form_data:request",
    "system:debug_compression",
    "system:debug_message",
    "task:aborted",
    "task:completed",
    "task:metrics",
    "task:metrics_incremental",
    "task:setup",
    "task:started",
    "task:trace_context",
    "task:validated",
    "task:validation_error",
}
RESEARCH_EVENTS = {
    "analyzing:end",
    "analyzing:start",
    "complete",
    "error",
    "evaluating:end",
    "evaluating:start",
    "following:end",
    "following:start",
    "iteration:end",
    "iteration:start",
    "judging:end",
    "judging:start",
    "outlining:end",
    "outlining:start",
    "planning:end",
    "planning:start",
    "prefetching:end",
    "prefetching:start",
    "searching:end",
    "searching:start",
    "start",
    "writing:end",
    "writing:start",
}


def arm_names(descriptor: Descriptor) -> dict[str, str]:
    fields = descriptor.oneofs_by_name["event"].fields
    return {f.name: f.GetOptions().Extensions[options_pb2.event_name] for f in fields}


def test_automate_event_has_one_arm_per_seed_event() -> None:
    arms = arm_names(automate_events_pb2.AutomateEvent.DESCRIPTOR)
    assert len(arms) == 33
    assert set(arms.values()) == AUTOMATE_EVENTS
    for arm, event in arms.items():
        assert arm == re.sub(r"[:]", "_", event)


def test_research_event_has_one_arm_per_seed_event() -> None:
    arms = arm_names(research_events_pb2.ResearchEvent.DESCRIPTOR)
    assert len(arms) == 23
    assert set(arms.values()) == RESEARCH_EVENTS


@pytest.mark.skipif(not SEED.exists(), reason="shared/seeds is not beside the checkout")
def test_event_names_match_the_seed_document() -> None:
    text = SEED.read_text()
    automate = set(re.findall(r"Envelope for the “([^”]+)” event from /v1/automate", text))
    research = set(re.findall(r"Envelope for the “([^”]+)” event from /v1/research", text))
    assert automate == AUTOMATE_EVENTS
    assert research == RESEARCH_EVENTS


def _enums() -> list[EnumDescriptor]:
    enums: list[EnumDescriptor] = []
    for module in (ai_generation_pb2, automate_events_pb2, research_events_pb2):
        enums.extend(module.DESCRIPTOR.enum_types_by_name.values())
    return enums


@pytest.mark.parametrize("enum", _enums(), ids=lambda e: e.name)
def test_every_closed_literal_keeps_its_wire_value(enum: EnumDescriptor) -> None:
    for value in enum.values:
        wire = value.GetOptions().Extensions[options_pb2.wire_value]
        assert (value.number == 0) == (wire == ""), value.name


def test_examples_of_wire_values() -> None:
    value = ai_generation_pb2.FinishReason.DESCRIPTOR.values_by_name["FINISH_REASON_CONTENT_FILTER"]
    assert value.GetOptions().Extensions[options_pb2.wire_value] == "content-filter"
    coverage = research_events_pb2.ResearchCoverage.DESCRIPTOR.values_by_name
    assert (
        coverage["RESEARCH_COVERAGE_COMPREHENSIVE"].GetOptions().Extensions[options_pb2.wire_value]
        == "Comprehensive"
    )


def test_buf_lint_passes() -> None:
    buf = REPO_ROOT / "node_modules" / ".bin" / "buf"
    assert buf.exists(), "scripts/test installs buf with npm"
    result = subprocess.run([str(buf), "lint"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_generated_code_is_current(tmp_path: Path) -> None:
    subprocess.run([str(REPO_ROOT / "scripts" / "gen-proto"), str(tmp_path)], check=True)
    fresh = tmp_path / "outrider" / "v1"
    committed = REPO_ROOT / "client" / "outrider" / "v1"
    generated = sorted(p.name for p in fresh.iterdir() if "_pb2" in p.name)
    assert generated == sorted(p.name for p in committed.iterdir() if "_pb2" in p.name)
    _, mismatch, errors = filecmp.cmpfiles(fresh, committed, generated, shallow=False)
    assert not mismatch and not errors, f"run scripts/gen-proto; stale: {mismatch + errors}"
