"""A client's broken body is the client's mistake on every JSON door (/a2a in both protocol
versions, /mcp, the REST API): JSON nested to any depth, bytes that are not UTF-8, ids of
thousands of digits, NaN, lone surrogates. The answer is a parse error, an invalid request or
invalid params (JSON-RPC) or a 4xx (REST): never -32603, a 500, code 0 or Python's words."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio
from hypothesis import given
from hypothesis import strategies as st

from tests.edge.test_fuzz_parsers import fuzz
from tests.rest.support import RestCase, start_rest
from tests.support.fuzzing import FUZZ, Client, json_values
from tests.support.raw_mcp import MCP_HEADERS, mcp_answer, mcp_session

pytestmark = pytest.mark.asyncio(loop_scope="module")
CLIENT_ERRORS = {-32700, -32600, -32601, -32602}
# Python's and protobuf's own words for what went wrong, which the callers used to get
PYTHON = (
    "Traceback",
    "codec can't decode",
    "set_int_max_str_digits",
    "maximum recursion depth",
    "Expecting value",
    "Message too deep",
)


def _send(text: str, version: str) -> str:
    """An A2A send of one text part and a data part holding `DATA`, in `version`."""
    if version == "0.3":
        message = {
            "kind": "message",
            "messageId": "m",
            "role": "user",
            "parts": [{"kind": "text", "text": text}, {"kind": "data", "data": "DATA"}],
        }
        method = "message/send"
    else:
        message = {
            "messageId": "m",
            "role": "ROLE_USER",
            "parts": [{"text": text}, {"data": "DATA"}],
        }
        method = "SendMessage"
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": message}})


def _bodies(template: str) -> dict[str, bytes]:
    """Broken versions of `template`, a body with the text "hello", the data "DATA" and the
    id 1."""
    return {
        "deep": template.replace('"DATA"', "[" * 5000 + "]" * 5000).encode(),
        "deep data": template.replace('"DATA"', '{"x": ' + "[" * 60 + "]" * 60 + "}").encode(),
        "not UTF-8": template.replace('"DATA"', '{"x": "\xff\xfe"}').encode("latin-1"),
        "huge id": template.replace('"id": 1', '"id": ' + "9" * 5000).encode(),
        "huge number": template.replace('"DATA"', '{"max_iterations": 1e400}').encode(),
        "NaN": template.replace('"DATA"', '{"x": NaN}').encode(),
        "lone surrogate": template.replace('"hello"', '"\\ud800"').encode(),
    }


def _json_rpc_bodies(version: str) -> dict[str, bytes]:
    """For JSON-RPC, also an id of 4,000 digits: JSON, but no id a client can mean."""
    send = _send("hello", version)
    return _bodies(send) | {"long id": send.replace('"id": 1', '"id": ' + "9" * 4000).encode()}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def case(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[RestCase]:
    started = await start_rest(tmp_path_factory.mktemp("bad-bodies"))
    yield started
    await started.stop()


def client_error(response: httpx.Response) -> dict[str, object]:
    """A JSON-RPC client error (in a 200, 400 or 413), in our words."""
    assert response.status_code in (200, 400, 413), response.text[:300]
    answer = response.json()
    if "error" not in answer:  # text/event-stream answers are data lines: none here
        raise AssertionError(f"not an error: {response.text[:300]}")
    error = answer["error"]
    assert error["code"] in CLIENT_ERRORS, error
    assert not any(words in error["message"] for words in PYTHON), error
    return dict(error)


@pytest.mark.parametrize("version", ["0.3", "1.0"])
async def test_a2a_answers_broken_bodies_as_client_errors(case: RestCase, version: str) -> None:
    headers = {"Content-Type": "application/json", "A2A-Version": version}
    async with httpx.AsyncClient(base_url=case.origin, headers=headers, timeout=60) as http:
        for name, body in _json_rpc_bodies(version).items():
            error = client_error(await http.post("/a2a", content=body))
            assert error["code"] != -32603, (name, error)


async def test_mcp_answers_broken_bodies_as_client_errors(case: RestCase) -> None:
    url = f"{case.origin}/mcp"
    async with httpx.AsyncClient(headers=MCP_HEADERS, timeout=60) as http:
        session = await mcp_session(http, url)
        in_session = MCP_HEADERS | {
            "Content-Type": "application/json",
            "Mcp-Session-Id": session,
            "Mcp-Protocol-Version": "2025-11-25",
        }
        for name, body in _json_rpc_bodies("1.0").items():
            call = body.replace(b'"SendMessage"', b'"tools/call"')
            response = await http.post(url, content=call, headers=in_session)
            if response.headers["content-type"].startswith("text/event-stream"):
                error = mcp_answer(response, None)["error"]
                assert error["code"] in CLIENT_ERRORS, (name, error)
            else:
                client_error(response)


async def test_rest_answers_broken_bodies_with_400(case: RestCase) -> None:
    async with httpx.AsyncClient(base_url=case.origin, timeout=60) as http:
        template = json.dumps({"task": "hello", "data": "DATA", "id": 1})
        for name, body in _bodies(template).items():
            response = await http.post(
                "/v1/automate", content=body, headers={"Content-Type": "application/json"}
            )
            assert response.status_code == 400, (name, response.text[:300])
            assert response.json()["error"]["reason"] == "INVALID_ARGUMENT"


async def test_a2a_never_answers_a_fuzzed_body_with_an_internal_error(case: RestCase) -> None:
    methods = st.sampled_from(["message/send", "SendMessage", "tasks/get", "GetTask", "x"])
    envelopes = st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0"), "method": methods},
        optional={"id": json_values, "params": json_values},
    )

    @FUZZ
    @given(envelopes | json_values, st.sampled_from(["0.3", "1.0"]))
    def prop(client: Client, body: object, version: str) -> None:
        raw = json.dumps(body).encode()  # NaN and Infinity too: not JSON, a parse error
        headers = {"content-type": "application/json", "a2a-version": version}
        response = client.http.post("/a2a", content=raw, headers=headers)
        if "error" in response.json():
            assert response.json()["error"]["code"] != -32603, response.text[:300]
            client.outcomes["refused"] += 1

    outcomes = await fuzz(case, lambda client: prop(client))
    assert outcomes["refused"] >= 30, outcomes
