"""Hypothesis strategies of hostile input and a blocking client that checks each answer is clean.

The server runs in the test's event loop; hypothesis drives it from a worker thread with blocking
clients (as the schemathesis test does), so every example crosses real sockets.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import grpc
import httpx
from google.protobuf import struct_pb2
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from outrider.v1 import run_service_pb2, run_service_pb2_grpc

# Deterministic: derandomize=True makes every run draw the same examples (no example database),
# so CI fails or passes the same way; `max_examples` keeps the whole module near 30 s.
FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

INT32 = 2**31 - 1
# Text with what breaks naive parsers: NUL, controls, newlines, non-BMP, and (where JSON carries
# it) lone surrogates.
texts = st.text(max_size=40)
surrogate_texts = st.text(st.characters(codec=None), max_size=10)
numbers = st.integers(-(2**70), 2**70) | st.floats(allow_nan=True, allow_infinity=True)
scalars = st.none() | st.booleans() | numbers | texts
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=20,
)


def nested(depth: int) -> Any:
    value: Any = 1
    for level in range(depth):
        value = {"k": value} if level % 2 else [value]
    return value


deep_values = st.integers(1, 80).map(nested)
# The ScriptAgent follows instructions in data's top-level keys: "x"-prefixed keys are none.
data_objects = st.dictionaries(texts.map(lambda key: f"x{key}"), json_values | deep_values)


# Text a well-meaning client sends: printable and not blank, any script, emoji included.
plain_texts = st.text(st.characters(exclude_categories=["Cs", "Cc"]), min_size=1, max_size=40)
plain_texts = plain_texts.filter(str.strip)


def loose(typed: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the right type, sometimes any JSON value at all."""
    return st.one_of(typed, typed, json_values)


def fill(out: struct_pb2.Value, value: Any) -> struct_pb2.Value:
    """Writes any JSON-ish Python value into `out` in place, NaN and any depth included: copying
    a message deeper than protobuf's decoding limit fails, so nothing here copies."""
    if value is None:
        out.null_value = struct_pb2.NULL_VALUE
    elif isinstance(value, bool):
        out.bool_value = value
    elif isinstance(value, int | float):
        out.number_value = float(value)
    elif isinstance(value, str):
        out.string_value = value
    elif isinstance(value, list):
        out.list_value.SetInParent()
        for item in value:
            fill(out.list_value.values.add(), item)
    else:
        out.struct_value.SetInParent()
        for key, item in value.items():
            fill(out.struct_value.fields[key], item)
    return out


def fill_struct(out: struct_pb2.Struct, value: dict[str, Any]) -> None:
    for key, item in value.items():
        fill(out.fields[key], item)


@dataclass
class Client:
    """Blocking gRPC and HTTP clients of one server."""

    channel: grpc.Channel
    runs: run_service_pb2_grpc.RunServiceStub
    http: httpx.Client
    # How the examples ended ("read back", "refused"): a property whose examples all end one
    # way tests less than it claims, so the tests check both happened.
    outcomes: Counter[str] = field(default_factory=Counter)

    @classmethod
    def of(cls, grpc_port: int, origin: str) -> Client:
        channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
        http = httpx.Client(
            base_url=origin, timeout=30, headers={"content-type": "application/json"}
        )
        return cls(channel, run_service_pb2_grpc.RunServiceStub(channel), http)

    def close(self) -> None:
        self.http.close()
        self.channel.close()

    def create_raw(self, body: bytes) -> run_service_pb2.CreateRunResponse:
        """CreateRun with `body` as the request's bytes, whatever they are."""
        call = self.channel.unary_unary(
            "/outrider.v1.RunService/CreateRun",
            response_deserializer=run_service_pb2.CreateRunResponse.FromString,
        )
        response: run_service_pb2.CreateRunResponse = call(body)
        return response

    def readable(self, name: str) -> None:
        """The run reads back on both edges and is listed on both."""
        run = self.runs.GetRun(run_service_pb2.GetRunRequest(name=name)).run
        assert run.name == name
        rest = self.http.get(f"/v1/{name}")
        assert rest.status_code == 200, rest.text[:300]
        listed = self.runs.ListRuns(run_service_pb2.ListRunsRequest(page_size=1000))
        assert name in [r.name for r in listed.runs]
        page = self.http.get("/v1/runs", params={"pageSize": 1000})
        assert page.status_code == 200 and name in [r["name"] for r in page.json()["runs"]]
        self.outcomes["read back"] += 1


def clean_grpc_refusal(error: grpc.RpcError, *allowed: grpc.StatusCode) -> None:
    code = error.code()  # type: ignore[attr-defined]
    assert code in (grpc.StatusCode.INVALID_ARGUMENT, *allowed), (code, error.details())  # type: ignore[attr-defined]
    assert "Traceback" not in (error.details() or "")  # type: ignore[attr-defined]


def clean_http_refusal(response: httpx.Response, *allowed: int) -> None:
    assert response.status_code in (400, *allowed), (response.status_code, str(response.url)[:300])
    error = response.json()["error"]
    assert error["status"] == response.status_code and error["reason"]
