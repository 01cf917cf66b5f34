"""Malformed input gets a clean status on both edges (gRPC INVALID_ARGUMENT with field violations,
HTTP 400/404 with a JSON body), never INTERNAL, UNKNOWN, RESOURCE_EXHAUSTED or 500."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from outrider.server.core.errors import QUOTE_CHARS
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import params_pb2, run_pb2, run_service_pb2
from tests.support.both_edges import Edges, both_edges
from tests.support.harness import rich_error

RUN_ID = "0123456789abcdef"


@pytest.fixture
async def edges(tmp_path: Path) -> Any:
    async with both_edges(tmp_path) as started:
        yield started


async def refused(call: Any) -> dict[str, str]:
    """The field violations of a call that must fail with INVALID_ARGUMENT."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        result = await call if not hasattr(call, "read") else [m async for m in call]
        raise AssertionError(f"accepted: {result!r}"[:200])
    error = rich_error(caught.value)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT, (error.code, error.message[:200])
    assert len(error.message) < 2_000
    return error.violations


async def rest_error(edges: Edges, method: str, path: str, status: int, **kw: Any) -> Any:
    response = await edges.http.request(method, path, **kw)
    assert response.status_code == status, (response.status_code, response.text[:300])
    error = response.json()["error"]
    assert len(response.text) < 5_000
    return error


def create(**params: Any) -> run_service_pb2.CreateRunRequest:
    return run_service_pb2.CreateRunRequest(automate=params_pb2.AutomateParams(**params))


async def test_a_hundred_thousand_deep_body_is_400(edges: Edges) -> None:
    for path in ("/v1/automate", "/v1/research", f"/v1/runs/{RUN_ID}/cancel"):
        for opener in (b"[", b'{"a":'):
            body = opener * 100_000
            error = await rest_error(edges, "POST", path, 400, content=body)
            assert error["fieldViolations"][0]["field"] == "body"


async def test_lone_surrogates_are_400_and_grpc_never_sees_them(edges: Edges) -> None:
    for body in ('{"task": "\\ud800"}', '{"task": "t", "data": {"\\udfff": 1}}'):
        error = await rest_error(edges, "POST", "/v1/automate", 400, content=body.encode())
        assert "surrogate" in error["fieldViolations"][0]["description"]
    paired = await edges.http.post("/v1/automate", content=b'{"task": "\\ud83d\\ude00 t"}')
    assert paired.status_code == 200
    # Over gRPC a string is UTF-8 on the wire: invalid bytes make an undecodable request.
    raw = create(task="x").SerializeToString().replace(b"x", b"\xed\xa0\x80")
    assert "request" in await refused(raw_call(edges, "CreateRun", raw))


def raw_call(edges: Edges, method: str, body: bytes, service: str = "RunService") -> Any:
    """Sends `body` as the request of `method`, whatever its bytes are."""
    callable_ = edges.channel.unary_unary(f"/outrider.v1.{service}/{method}")
    return callable_(body)


@pytest.mark.parametrize("body", [b"\xff\xff\xff", b"\x0a\x05ab", b"\x08" + b"\xff" * 11])
async def test_undecodable_protobuf_requests_are_invalid_argument(
    edges: Edges, body: bytes
) -> None:
    for method in ("CreateRun", "GetRun", "ListRuns"):
        violations = await refused(raw_call(edges, method, body))
        assert "is not a valid outrider.v1." in violations["request"]
    stream = edges.channel.unary_stream("/outrider.v1.RunService/Automate")
    assert "request" in await refused(stream(body))


async def test_too_deep_protobuf_requests_are_invalid_argument(edges: Edges) -> None:
    data: Any = {}
    for _ in range(60):
        data = {"k": data}
    request = create(task="t")
    json_format.ParseDict(data, request.automate.data, max_recursion_depth=1000)
    violations = await refused(raw_call(edges, "CreateRun", request.SerializeToString()))
    assert "CreateRunRequest" in violations["request"]


async def test_an_undecodable_message_on_the_interact_stream(edges: Edges) -> None:
    bidi = edges.channel.stream_stream("/outrider.v1.InteractionService/Interact")

    async def first_garbage() -> Any:
        yield b"\xff\xff"

    assert "request" in await refused(bidi(first_garbage()))

    async def garbage_after_start() -> Any:
        start = isv.InteractRequest(
            start=isv.InteractStart(automate=params_pb2.AutomateParams(task="t", data=HOLD))
        )
        yield start.SerializeToString()
        yield b"\xff\xff"

    assert "request" in await refused(bidi(garbage_after_start()))


HOLD = json_format.ParseDict({"hold": True}, params_pb2.AutomateParams().data)


async def test_nul_characters_are_refused(edges: Edges) -> None:
    cases = [
        (create(task="a\x00b"), "automate.task"),
        (create(task="t", url="http://a.example/\x00"), "automate.url"),
        (create(task="t", guardrails="\x00"), "automate.guardrails"),
        (create(task="t", url="http://a.example/ b"), "automate.url"),
    ]
    for request, field in cases:
        assert field in await refused(edges.runs.CreateRun(request))
    for body in ({"task": "a\u0000b"}, {"task": "t", "url": "http://a.example/\u0000"}):
        error = await rest_error(edges, "POST", "/v1/automate", 400, json=body)
        assert error["fieldViolations"][0]["field"] in ("task", "url")
    research = {"query": "q\u0000"}
    error = await rest_error(edges, "POST", "/v1/research", 400, json=research)
    assert error["fieldViolations"][0]["field"] == "query"
    assert await edges.list_names() == []


async def test_names_must_match_whole_strings(edges: Edges) -> None:
    created = await edges.runs.CreateRun(create(task="t"))
    name = created.run.name
    for bad in (f"{name}\n", f"\n{name}", f"{name}\x00", f"{name} "):
        assert "name" in await refused(edges.runs.GetRun(run_service_pb2.GetRunRequest(name=bad)))
        cancel = run_service_pb2.CancelRunRequest(name=bad)
        assert "name" in await refused(edges.runs.CancelRun(cancel))
    await rest_error(edges, "GET", f"/v1/{name}%0A", 404)
    interaction = isv.GetInteractionRequest(name="interactions/0123456789abcdef\n")
    assert "name" in await refused(edges.interactions.GetInteraction(interaction))
    for hosts, field in (
        ({"trusted_hostnames": ["example.com\n"]}, "automate.trusted_hostnames[0]"),
        ({"geo_target": {"country": "US\n"}}, "automate.geo_target.country"),
    ):
        assert field in await refused(edges.runs.CreateRun(create(task="t", **hosts)))


async def test_errors_quote_a_short_prefix_of_what_was_sent(edges: Edges) -> None:
    huge = "runs/" + "x" * 1_000_000
    violations = await refused(edges.runs.GetRun(run_service_pb2.GetRunRequest(name=huge)))
    assert len(violations["name"]) < 4 * QUOTE_CHARS + 100
    assert "1,000,005 characters" in violations["name"]
    hosts = ["h/" + "y" * 1000] * 2_000
    violations = await refused(edges.runs.CreateRun(create(task="t", trusted_hostnames=hosts)))
    assert "at most 1,000 hostnames" in violations["automate.trusted_hostnames"]
    many = ["not a host"] * 900
    violations = await refused(edges.runs.CreateRun(create(task="t", trusted_hostnames=many)))
    assert len(violations) <= 21
    error = await rest_error(edges, "GET", "/v1/runs/" + "z" * 50_000, 404)
    assert len(error["message"]) < 200


def forged_tokens() -> list[str]:
    def b64(value: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    deep = "[" * 3_000 + "]" * 3_000
    return [
        b64([10**30, RUN_ID]),  # the old unsigned format: huge timestamp
        b64([-1, RUN_ID]),
        b64(["1", 2]),  # wrong types
        b64([True, RUN_ID]),
        base64.urlsafe_b64encode(deep.encode()).decode(),
        b64([1, RUN_ID]) + ".AAAAAAAAAAAAAAAAAAAAAA",  # a signature we did not make
        "x" * 600,
        "\u00e9t\u00e9.token",
        "..",
    ]


async def test_forged_and_tampered_page_tokens_are_refused(edges: Edges) -> None:
    for _ in range(3):
        await edges.runs.CreateRun(create(task="t"))
    page = await edges.runs.ListRuns(run_service_pb2.ListRunsRequest(page_size=1))
    genuine = page.next_page_token
    payload, _, signature = genuine.partition(".")
    swapped = "A" if signature[0] != "A" else "B"
    tampered = [
        f"{payload}.{swapped}{signature[1:]}",
        f"{payload[:-1]}x.{signature}",
        genuine + "x",
    ]
    for token in [*forged_tokens(), *tampered]:
        listing = run_service_pb2.ListRunsRequest(page_token=token)
        assert "page_token" in await refused(edges.runs.ListRuns(listing))
        interactions = isv.ListInteractionsRequest(page_token=token)
        assert "page_token" in await refused(edges.interactions.ListInteractions(interactions))
        error = await rest_error(edges, "GET", "/v1/runs", 400, params={"pageToken": token})
        assert error["reason"] == "INVALID_ARGUMENT"
    # A runs token does not page interactions.
    other = isv.ListInteractionsRequest(page_token=genuine)
    assert "page_token" in await refused(edges.interactions.ListInteractions(other))
    following = await edges.runs.ListRuns(run_service_pb2.ListRunsRequest(page_token=genuine))
    assert len(following.runs) == 2


@pytest.mark.parametrize(
    "value", ["-1", "1e3", "\u0663", "9" * 30, "9" * 5_000, "1 2", "0x10", "+1"]
)
async def test_bad_last_event_ids_are_400(edges: Edges, value: str) -> None:
    created = await edges.runs.CreateRun(create(task="t"))
    headers = {"Last-Event-ID": value.encode()}
    error = await rest_error(edges, "GET", f"/v1/{created.run.name}/events", 400, headers=headers)
    assert error["fieldViolations"][0]["field"] == "Last-Event-ID"
    for query in ("after", "pageSize"):
        path = f"/v1/{created.run.name}/events" if query == "after" else "/v1/runs"
        error = await rest_error(edges, "GET", path, 400, params={query: value})
        assert error["fieldViolations"][0]["field"] == query


async def test_bad_form_answers_are_refused(edges: Edges) -> None:
    plan = {"ask_input": True, "hold": True}
    automate = params_pb2.AutomateParams(task="t", interactive=True)
    json_format.ParseDict(plan, automate.data)
    created = await edges.runs.CreateRun(run_service_pb2.CreateRunRequest(automate=automate))
    request = isv.ListInteractionsRequest(run=created.run.name)
    while not (listed := await edges.interactions.ListInteractions(request)).interactions:
        pass
    interaction_id = listed.interactions[0].name.removeprefix("interactions/")
    path = f"/v1/automate/{interaction_id}/input"
    for fields, bad in (
        ([{"ref": "E1", "value": "a\u0000b"}], "fields[0].value"),
        ([{"ref": "E1", "value": "v" * 10_001}], "fields[0].value"),
        ([{"ref": "Z" * 100_000, "value": "v"}], "fields[0].ref"),
        ([{"ref": 5, "value": "v"}], "fields[0].ref"),
        ("not a list", "fields"),
    ):
        error = await rest_error(edges, "POST", path, 400, json={"fields": fields})
        violations = {v["field"]: v["description"] for v in error["fieldViolations"]}
        assert bad in violations and len(violations[bad]) < 200
    cancel = await edges.runs.CancelRun(run_service_pb2.CancelRunRequest(name=created.run.name))
    assert cancel.run.state == run_pb2.RUN_STATE_CANCELLED


async def test_long_reasons_are_refused_so_no_run_grows_past_its_readers(edges: Edges) -> None:
    automate = params_pb2.AutomateParams(task="t", interactive=True)
    json_format.ParseDict({"ask_approval": True, "hold": True}, automate.data)
    created = await edges.runs.CreateRun(run_service_pb2.CreateRunRequest(automate=automate))
    name = created.run.name
    huge = run_service_pb2.CancelRunRequest(name=name, reason="r" * 3_000_000)
    assert "reason" in await refused(edges.runs.CancelRun(huge))
    error = await rest_error(edges, "POST", f"/v1/{name}/cancel", 400, json={"reason": "\u0000"})
    assert error["fieldViolations"][0]["field"] == "reason"
    request = isv.ListInteractionsRequest(run=name)
    while not (listed := await edges.interactions.ListInteractions(request)).interactions:
        pass
    approval = listed.interactions[0].name.removeprefix("interactions/")
    body = {"decision": "approve", "reason": "r" * 1_001}
    error = await rest_error(edges, "POST", f"/v1/automate/{approval}/approval", 400, json=body)
    assert error["fieldViolations"][0]["field"] == "reason"
    cancelled = await edges.runs.CancelRun(run_service_pb2.CancelRunRequest(name=name, reason="ok"))
    assert cancelled.run.state == run_pb2.RUN_STATE_CANCELLED
    assert await edges.list_names() == [name]
