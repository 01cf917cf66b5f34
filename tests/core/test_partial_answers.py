"""A form answer given in parts (the MCP edge's plain fields first, the answer page's secret ones
after): the part is held by the executing replica, never stored, merged into the next answer,
and kept by a decline of the rest (tests/mcp: the declined answer page), unless it is the whole
answer: then the decline declines."""

from __future__ import annotations

import pytest

from outrider.server.core.errors import FailedPrecondition, InvalidArgument
from outrider.server.core.principals import ANONYMOUS
from outrider.v1 import interaction_pb2 as ip
from tests.core.test_interactions import SECRET, until_event
from tests.support.harness import Harness
from tests.support.requests import automate_request, read_rest


async def asked(harness: Harness) -> tuple[object, str]:
    call = harness.runs.Automate(automate_request(steps=1, ask_input=True))
    event = await until_event(call, "interactive:form_data:request")
    return call, event.automate.interactive_form_data_request.request_id


async def test_a_held_part_completes_the_next_answer_and_is_never_stored(
    harness: Harness,
) -> None:
    call, request_id = await asked(harness)
    answers = harness.server.runs.answers
    assert answers.hold_input(request_id, [("E1", SECRET)], ANONYMOUS) == ["E1"]
    pending = harness.server.runs.interactions.get(request_id, ANONYMOUS)
    assert pending.state == ip.INTERACTION_STATE_PENDING  # a part does not answer
    done = await answers.submit_input(request_id, [("E1", "")], False, ANONYMOUS)
    assert done.state == ip.INTERACTION_STATE_RESOLVED
    repeat = await answers.submit_input(request_id, [("E1", "")], False, ANONYMOUS)
    assert repeat.state == ip.INTERACTION_STATE_RESOLVED  # the same answer again is harmless
    await read_rest(call)  # type: ignore[arg-type]
    assert harness.agent.received_inputs == [{"E1": SECRET}]
    harness.server.store.flush()
    stored = b"".join(
        p.read_bytes() for p in harness.server.settings.data_dir.rglob("*") if p.is_file()
    )
    assert SECRET.encode() not in stored


async def test_a_decline_of_a_wholly_held_answer_declines_and_bad_parts_are_refused(
    harness: Harness,
) -> None:
    call, request_id = await asked(harness)
    answers = harness.server.runs.answers
    with pytest.raises(InvalidArgument, match="not a field of this request"):
        answers.hold_input(request_id, [("E7", "x")], ANONYMOUS)
    with pytest.raises(InvalidArgument, match="at least one field"):
        answers.hold_input(request_id, [], ANONYMOUS)
    answers.hold_input(request_id, [("E1", SECRET)], ANONYMOUS)  # the form's only field
    declined = await answers.submit_input(request_id, [], True, ANONYMOUS)
    assert declined.declined
    with pytest.raises(FailedPrecondition, match="already answered"):
        answers.hold_input(request_id, [("E1", SECRET)], ANONYMOUS)
    await read_rest(call)  # type: ignore[arg-type]
    assert harness.agent.received_inputs == []
