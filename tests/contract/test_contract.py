"""The outrider.v1 contract: buf lint clean, generated code current, the seed's unions and fields
mirrored (facts from seed_events.json, so the checks run in any clone)."""

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
from tests.contract.seed_facts import SEED, committed_facts, facts_from_seed
from tests.support.harness import REPO_ROOT

FACTS = committed_facts()
AUTOMATE_EVENTS = set(FACTS["automate"])
RESEARCH_EVENTS = set(FACTS["research"])
UNIONS = {
    "automate": automate_events_pb2.AutomateEvent.DESCRIPTOR,
    "research": research_events_pb2.ResearchEvent.DESCRIPTOR,
}
# Wire discriminators the contract expresses as oneof arms instead of fields.
AS_ONEOF_ARMS = {("ai:generation", "type")}


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


def names_reachable_from(message: Descriptor, seen: set[str] | None = None) -> set[str]:
    """Field and oneof names of `message` and of every message type under it."""
    seen = set() if seen is None else seen
    if message.full_name in seen:
        return set()
    seen.add(message.full_name)
    names = {oneof.name for oneof in message.oneofs}
    for field in message.fields:
        names.add(field.name)
        if field.message_type is not None:
            names |= names_reachable_from(field.message_type, seen)
    return names


@pytest.mark.parametrize(
    ("endpoint", "event"),
    [(endpoint, event) for endpoint in sorted(FACTS) for event in sorted(FACTS[endpoint])],
)
def test_every_seed_field_of_an_event_is_in_its_payload(endpoint: str, event: str) -> None:
    arms = UNIONS[endpoint].oneofs_by_name["event"].fields
    (arm,) = [f for f in arms if f.GetOptions().Extensions[options_pb2.event_name] == event]
    expected = {name for name in FACTS[endpoint][event] if (event, name) not in AS_ONEOF_ARMS}
    assert expected - names_reachable_from(arm.message_type) == set()


@pytest.mark.skipif(not SEED.exists(), reason="shared/seeds is not beside the checkout")
def test_committed_facts_match_the_seed_document() -> None:
    assert facts_from_seed(SEED.read_text()) == FACTS


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


def is_generated(path: Path) -> bool:
    return "_pb2" in path.name or path.name == "descriptors.binpb"


def test_generated_code_is_current(tmp_path: Path) -> None:
    subprocess.run([str(REPO_ROOT / "scripts" / "gen-proto"), str(tmp_path)], check=True)
    fresh = tmp_path / "outrider" / "v1"
    committed = REPO_ROOT / "client" / "outrider" / "v1"
    generated = sorted(p.name for p in fresh.iterdir() if is_generated(p))
    assert generated == sorted(p.name for p in committed.iterdir() if is_generated(p))
    _, mismatch, errors = filecmp.cmpfiles(fresh, committed, generated, shallow=False)
    assert not mismatch and not errors, f"run scripts/gen-proto; stale: {mismatch + errors}"
