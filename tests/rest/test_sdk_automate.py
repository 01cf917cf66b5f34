"""The official tabstack SDK, pointed at the adapter with base_url: typed automate events with
their fields populated, answers to form-data requests, and 410 for late or changed answers."""

from __future__ import annotations

from typing import Any

import pytest
import tabstack
from pydantic import BaseModel

from outrider.v1 import run_pb2
from tests.rest.agents import CatalogueAgent
from tests.rest.catalogue import AUTOMATE_ARMS
from tests.rest.conftest import RestFactory
from tests.rest.sdk_models import extras
from tests.rest.support import RestCase
from tests.support.harness import eventually


def client(case: RestCase) -> tabstack.AsyncTabstack:
    return tabstack.AsyncTabstack(api_key="unused", base_url=case.base_url, max_retries=0)


def defaults_left(model: BaseModel, path: str = "") -> list[str]:
    """Fields the SDK filled in itself because the JSON lacked them."""
    missing = [
        f"{path}.{name}" for name in type(model).model_fields if name not in model.model_fields_set
    ]
    for name in model.model_fields_set:
        value: Any = getattr(model, name)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, BaseModel):
                missing += defaults_left(item, f"{path}.{name}")
    return missing


async def test_every_automate_event_type_arrives_typed_and_populated(
    make_rest: RestFactory,
) -> None:
    catalogue = CatalogueAgent()
    case = await make_rest(agents={run_pb2.RUN_KIND_AUTOMATE: catalogue})
    async with client(case) as sdk:
        stream = await sdk.agent.automate(task="Every event, please")
        events = [event async for event in stream]
    names = {e.event for e in events}
    assert len(names) == len(AUTOMATE_ARMS), sorted(names)
    for event in events:
        assert type(event).__module__ == "tabstack.types.automate_event", event
        assert not extras(event), (event.event, extras(event))
        if event.event not in ("done", "complete"):
            assert not defaults_left(event), (event.event, defaults_left(event))


async def test_answer_accepted_then_410_for_a_different_repeat(rest: RestCase) -> None:
    async with client(rest) as sdk:
        stream = await sdk.agent.automate(task="Log in", data={"ask_input": True}, interactive=True)
        names = []
        async for event in stream:
            names.append(event.event)
            if event.event == "interactive:form_data:request":
                request_id = event.data.request_id
                answer = [{"ref": "E1", "value": "ada@example.com"}]
                accepted = await sdk.agent.automate_input(request_id, fields=answer)
                assert accepted.status == "accepted"
                again = await sdk.agent.automate_input(request_id, fields=answer)
                assert again.status == "accepted"  # the identical repeat is harmless
                with pytest.raises(tabstack.APIStatusError) as refused:
                    await sdk.agent.automate_input(request_id, fields=[{"ref": "E1", "value": "x"}])
                assert refused.value.status_code == 410
    assert names[-2:] == ["complete", "done"]
    assert rest.agent.received_inputs == [{"E1": "ada@example.com"}]


async def test_410_after_expiry_and_404_for_an_unknown_request(make_rest: RestFactory) -> None:
    case = await make_rest(interaction_ttl=0.3)
    async with client(case) as sdk:
        stream = await sdk.agent.automate(task="Log in", data={"ask_input": True})
        request_id = ""
        async for event in stream:
            if event.event == "interactive:form_data:request":
                request_id = event.data.request_id
        assert request_id
        with pytest.raises(tabstack.APIStatusError) as late:
            await sdk.agent.automate_input(request_id, fields=[{"ref": "E1", "value": "a@b.c"}])
        assert late.value.status_code == 410
        with pytest.raises(tabstack.NotFoundError):
            await sdk.agent.automate_input("0123456789abcdef", fields=[])


async def test_approval_events_only_for_callers_who_opt_in(rest: RestCase) -> None:
    async with client(rest) as sdk:
        plain = await sdk.agent.automate(task="Submit", data={"ask_approval": True, "steps": 0})
        await _decide(sdk, await _pending(sdk), "approve")
        plain_names = [event.event async for event in plain]
        assert "approval_requested" not in plain_names and plain_names[-1] == "done"
        opted = await sdk.agent.automate(
            task="Submit",
            data={"ask_approval": True, "steps": 0},
            extra_headers={"X-Outrider-Approval-Events": "true"},
        )
        names = []
        async for event in opted:
            names.append(event.event)
            if event.event == "approval_requested":
                await _decide(sdk, await _pending(sdk), "reject")
    assert "approval_requested" in names and "approval_resolved" in names, names


async def _pending(sdk: tabstack.AsyncTabstack) -> str:
    found: list[str] = []

    async def listed() -> bool:
        page = await sdk.get("/interactions", cast_to=dict[str, Any])
        found[:] = [i["name"].removeprefix("interactions/") for i in page["interactions"]]
        return bool(found)

    await eventually(listed)
    return found[0]


async def _decide(sdk: tabstack.AsyncTabstack, approval_id: str, decision: str) -> None:
    result = await sdk.post(
        f"/automate/{approval_id}/approval",
        body={"decision": decision},
        cast_to=dict[str, Any],
    )
    assert result == {"status": "accepted"}
