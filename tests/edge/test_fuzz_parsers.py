"""Property-based tests of every parser of outside input, against a real server: each example is
either refused cleanly (HTTP 4xx with a JSON error body, gRPC INVALID_ARGUMENT or the one other
status the route may give) or becomes a run that reads back and is listed on both edges.

Examples are derandomized (see tests/support/fuzzing.py): the same ones on every run.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import interaction_service_pb2_grpc, params_pb2, run_service_pb2
from tests.rest.support import RestCase, start_rest
from tests.support.fuzzing import (
    FUZZ,
    INT32,
    Client,
    clean_grpc_refusal,
    clean_http_refusal,
    data_objects,
    fill_struct,
    json_values,
    loose,
    plain_texts,
    surrogate_texts,
    texts,
)

CODE = grpc.StatusCode


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RestCase]:
    case = await start_rest(tmp_path, max_concurrent_runs=50, max_queued_runs=500)
    yield case
    await case.stop()


async def fuzz(case: RestCase, prop: Callable[[Client], None]) -> Counter[str]:
    """Runs the property in a worker thread while the server serves from this loop; returns how
    the examples ended."""
    client = Client.of(case.grpc.port, case.origin)
    try:
        await asyncio.to_thread(prop, client)
    finally:
        await asyncio.to_thread(client.close)
    return client.outcomes


# REST bodies

hosts = st.lists(loose(texts), max_size=3)
automate_bodies = st.fixed_dictionaries(
    {},
    optional={
        "task": loose(texts | surrogate_texts),
        "url": loose(st.sampled_from(["http://a.example/", "https://b.example/x"]) | texts),
        "data": loose(data_objects),
        "guardrails": loose(texts),
        "maxIterations": loose(st.integers(-(2**40), 2**40)),
        "max_validation_attempts": loose(st.integers(-5, 20)),
        "trusted_hostnames": loose(hosts),
        "geo_target": loose(st.fixed_dictionaries({"country": loose(texts)})),
        "interactive": loose(st.booleans()),
        "options": loose(st.fixed_dictionaries({}, optional={"allowedDomains": hosts})),
    },
)
# Bodies a client means well with (whose data may still be too deep or not finite).
plain_bodies = st.fixed_dictionaries(
    {"task": plain_texts},
    optional={"data": data_objects, "interactive": st.booleans(), "guardrails": plain_texts},
)
research_bodies = st.fixed_dictionaries(
    {},
    optional={
        "query": loose(texts | surrogate_texts),
        "mode": loose(st.sampled_from(["fast", "balanced", "deep", "bogus"])),
        "fetch_timeout": loose(st.integers(-10, 400)),
    },
)
raw_bodies = st.binary(max_size=60) | texts.map(str.encode)


def rest_start(client: Client, path: str, body: bytes) -> None:
    headers = {"content-type": "application/json"}
    with client.http.stream("POST", path, content=body, headers=headers) as response:
        if response.status_code != 200:
            response.read()
            clean_http_refusal(response)
            client.outcomes["refused"] += 1
            return
        name = response.headers["outrider-run"]
    client.readable(name)


async def test_rest_bodies_start_runs_or_are_400(server: RestCase) -> None:
    @FUZZ
    @given(
        st.sampled_from(["/v1/automate", "/v1/research"]),
        plain_bodies | automate_bodies | research_bodies | json_values,
    )
    def prop(client: Client, path: str, body: Any) -> None:
        rest_start(client, path, json.dumps(body).encode())

    @FUZZ
    @given(raw_bodies)
    def raw(client: Client, body: bytes) -> None:
        rest_start(client, "/v1/automate", body)

    outcomes = await fuzz(server, lambda client: prop(client))
    assert outcomes["read back"] >= 2 and outcomes["refused"] >= 5, outcomes
    outcomes = await fuzz(server, lambda client: raw(client))
    assert outcomes["refused"] >= 50, outcomes


# proto requests -> run specs


@st.composite
def automate_request(draw: st.DrawFn) -> run_service_pb2.CreateRunRequest:
    """Built in place: `data` may be deeper than a message copy can decode."""
    request = run_service_pb2.CreateRunRequest()
    params = request.automate
    params.task = draw(plain_texts | texts)
    if draw(st.booleans()):  # the rest hostile too, or left alone
        params.url = draw(texts | st.just("https://a.example/"))
        params.guardrails = draw(texts)
        params.interactive = draw(st.booleans())
        params.trusted_hostnames.extend(draw(st.lists(texts, max_size=3)))
        params.geo_target.country = draw(texts)
        for field in ("max_iterations", "max_validation_attempts"):
            if draw(st.booleans()):
                setattr(params, field, draw(st.integers(-INT32, INT32)))
    if draw(st.booleans()):
        params.data.SetInParent()
        fill_struct(params.data, draw(data_objects))
    return request


@st.composite
def research_request(draw: st.DrawFn) -> run_service_pb2.CreateRunRequest:
    params = params_pb2.ResearchParams(
        query=draw(plain_texts | texts), mode=draw(st.integers(0, 6)), nocache=draw(st.booleans())
    )
    if draw(st.booleans()):
        params.fetch_timeout = draw(st.integers(-INT32, INT32))
    return run_service_pb2.CreateRunRequest(research=params)


run_options = st.just(params_pb2.RunOptions()) | st.builds(
    params_pb2.RunOptions,
    model=texts,
    allowed_domains=st.lists(texts, max_size=2),
    blocked_domains=st.lists(texts, max_size=2),
    cancel_on_disconnect=st.booleans(),
)


def create_or_refuse(client: Client, request: bytes) -> None:
    try:
        response = client.create_raw(request)
    except grpc.RpcError as error:
        clean_grpc_refusal(error)
        client.outcomes["refused"] += 1
        return
    client.readable(response.run.name)


async def test_proto_requests_start_runs_or_are_invalid_argument(server: RestCase) -> None:
    @FUZZ
    @given(automate_request() | research_request(), run_options)
    def prop(client: Client, request: Any, options: params_pb2.RunOptions) -> None:
        request.options.MergeFrom(options)
        create_or_refuse(client, request.SerializeToString())

    outcomes = await fuzz(server, lambda client: prop(client))
    assert outcomes["read back"] >= 2 and outcomes["refused"] >= 5, outcomes


async def test_raw_protobuf_bytes_start_runs_or_are_invalid_argument(server: RestCase) -> None:
    valid = run_service_pb2.CreateRunRequest(automate=params_pb2.AutomateParams(task="t"))

    @FUZZ
    @given(st.binary(max_size=80), st.integers(0, 40), st.binary(max_size=8))
    def prop(client: Client, noise: bytes, at: int, splice: bytes) -> None:
        genuine = valid.SerializeToString()
        for body in (noise, genuine[:at] + splice + genuine[at:]):
            create_or_refuse(client, body)

    outcomes = await fuzz(server, lambda client: prop(client))
    assert outcomes["read back"] >= 2 and outcomes["refused"] >= 5, outcomes


# page tokens, names, Last-Event-ID


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


tokens = (
    texts
    | st.binary(max_size=60).map(b64)
    | json_values.map(lambda v: b64(json.dumps(v).encode()))
    | st.tuples(json_values, st.binary(max_size=20)).map(
        lambda p: f"{b64(json.dumps(p[0]).encode())}.{b64(p[1])}"
    )
)


async def test_page_tokens_are_refused_unless_issued(server: RestCase) -> None:
    interactions = interaction_service_pb2_grpc.InteractionServiceStub

    @FUZZ
    @given(tokens.filter(bool))
    def prop(client: Client, token: str) -> None:
        for call in (
            lambda: client.runs.ListRuns(run_service_pb2.ListRunsRequest(page_token=token)),
            lambda: interactions(client.channel).ListInteractions(
                isv.ListInteractionsRequest(page_token=token)
            ),
        ):
            with pytest.raises(grpc.RpcError) as caught:
                call()
            clean_grpc_refusal(caught.value)
        clean_http_refusal(client.http.get("/v1/runs", params={"pageToken": token}))

    await fuzz(server, lambda client: prop(client))


names = texts | texts.map(lambda t: f"runs/{t}") | st.just("runs/0123456789abcdef\n")


async def test_names_are_invalid_argument_or_not_found(server: RestCase) -> None:
    @FUZZ
    @given(names)
    def prop(client: Client, name: str) -> None:
        with pytest.raises(grpc.RpcError) as caught:
            client.runs.GetRun(run_service_pb2.GetRunRequest(name=name))
        clean_grpc_refusal(caught.value, CODE.NOT_FOUND)
        response = client.http.get(f"/v1/runs/{quote(name.removeprefix('runs/'), safe='')}")
        # A path ending in a slash ("/v1/runs/%2F" decodes to "/v1/runs//") never reaches the
        # route: Starlette redirects it to the one without.
        if response.status_code != 307:
            clean_http_refusal(response, 404, 405)

    await fuzz(server, lambda client: prop(client))


header_texts = st.text(st.characters(min_codepoint=0x21, max_codepoint=0xFF), max_size=30)


async def test_last_event_ids_replay_or_are_400(server: RestCase) -> None:
    run = run_service_pb2.CreateRunRequest(automate=params_pb2.AutomateParams(task="t"))

    @FUZZ
    @given(header_texts | st.integers(0, 2**70).map(str) | st.text("0123456789", min_size=18))
    def prop(client: Client, value: str) -> None:
        name = client.runs.CreateRun(run).run.name if not names_made else names_made[0]
        names_made[:1] = [name]
        headers = {"Last-Event-ID": value.encode("latin-1")}
        with client.http.stream("GET", f"/v1/{name}/events", headers=headers) as response:
            response.read()
        if response.status_code != 200:
            clean_http_refusal(response)
        else:  # a blank header means "from the start"
            assert value.strip().isdigit() or not value.strip(), value

    names_made: list[str] = []
    await fuzz(server, lambda client: prop(client))


# form answers

answers = st.fixed_dictionaries(
    {},
    optional={
        "fields": loose(
            st.lists(
                st.fixed_dictionaries(
                    {}, optional={"ref": loose(texts | st.just("E1")), "value": loose(texts)}
                ),
                max_size=3,
            )
        ),
        "cancelled": loose(st.booleans()),
    },
)


async def test_form_answers_are_accepted_or_refused_cleanly(server: RestCase) -> None:
    request = run_service_pb2.CreateRunRequest(
        automate=params_pb2.AutomateParams(task="t", interactive=True)
    )
    fill_struct(request.automate.data, {"ask_input": True, "hold": True})

    @FUZZ
    @given(answers | json_values, texts)
    def prop(client: Client, body: Any, other_id: str) -> None:
        run = client.runs.CreateRun(request).run
        pending = interaction_service_pb2_grpc.InteractionServiceStub(client.channel)
        listing = isv.ListInteractionsRequest(run=run.name)
        while not (found := pending.ListInteractions(listing).interactions):
            time.sleep(0.01)
        interaction = found[0].name.removeprefix("interactions/")
        for target in (interaction, quote(other_id, safe="") or "x"):
            response = client.http.post(f"/v1/automate/{target}/input", json=body)
            if response.status_code != 202:
                clean_http_refusal(response, 404, 410)
        client.runs.CancelRun(run_service_pb2.CancelRunRequest(name=run.name))
        client.readable(run.name)

    await fuzz(server, lambda client: prop(client))
