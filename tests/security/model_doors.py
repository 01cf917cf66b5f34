"""One research start with a chosen model (options.model) on each door a caller has: gRPC,
REST, MCP and A2A, over their wires. Each answers the refusal's field violation as
(field, description), or None when the door started the run."""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
import httpx

from outrider.v1 import params_pb2, run_service_pb2, run_service_pb2_grpc
from tests.support.harness import rich_error

Violation = tuple[str, str] | None
QUERY = "Why do honey bee colonies die?"
_MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@dataclass
class Doors:
    origin: str  # the REST port: REST, /mcp and /a2a
    runs: run_service_pb2_grpc.RunServiceStub

    async def grpc(self, key: str, model: str) -> Violation:
        request = run_service_pb2.CreateRunRequest(
            research=params_pb2.ResearchParams(query=QUERY),
            options=params_pb2.RunOptions(model=model),
        )
        try:
            await self.runs.CreateRun(request, metadata=(("authorization", f"Bearer {key}"),))
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
            return _only(rich_error(error).violations)
        return None

    async def rest(self, key: str, model: str) -> Violation:
        body = {"query": QUERY, "options": {"model": model}}
        async with httpx.AsyncClient(timeout=120) as http:
            response = await http.post(f"{self.origin}/v1/research", json=body, headers=_auth(key))
        if response.status_code == 200:
            return None
        assert response.status_code == 400, response.text
        return _only(
            {v["field"]: v["description"] for v in response.json()["error"]["fieldViolations"]}
        )

    async def mcp(self, key: str, model: str) -> Violation:
        arguments = {"query": QUERY, "options": {"model": model}}
        async with httpx.AsyncClient(timeout=120, headers=_MCP_HEADERS | _auth(key)) as http:
            session = await _mcp_session(http, f"{self.origin}/mcp")
            call = {"name": "research", "arguments": arguments}
            answer = await _mcp_call(http, f"{self.origin}/mcp", session, "tools/call", call)
        result = answer["result"]
        if not result.get("isError"):
            return None
        text = result["content"][0]["text"]
        field, _, rest = text.removeprefix("Refused: ").partition(": ")
        return field, rest.rsplit(" (INVALID_ARGUMENT)", 1)[0]

    async def a2a(self, key: str, model: str) -> Violation:
        message = {
            "messageId": str(uuid.uuid4()),
            "role": "ROLE_USER",
            "parts": [
                {"text": QUERY},
                {"data": {"skill": "research", "options": {"model": model}}},
            ],
        }
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
        headers = _auth(key) | {"A2A-Version": "1.0"}
        async with httpx.AsyncClient(timeout=120) as http:
            answer = (await http.post(f"{self.origin}/a2a", json=body, headers=headers)).json()
        if "error" not in answer:
            return None
        assert answer["error"]["code"] == -32602, answer
        return _only(_a2a_violations(answer["error"]))

    def each(self) -> dict[str, Callable[[str, str], Awaitable[Violation]]]:
        return {"grpc": self.grpc, "rest": self.rest, "mcp": self.mcp, "a2a": self.a2a}


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _only(violations: dict[str, str]) -> Violation:
    assert len(violations) == 1, violations
    return next(iter(violations.items()))


def _a2a_violations(error: dict[str, Any]) -> dict[str, str]:
    """google.rpc.BadRequest's field violations among the error's details."""
    found = {}
    for detail in error.get("data") or []:
        for violation in detail.get("fieldViolations", []):
            found[violation["field"]] = violation["description"]
    return found


async def _mcp_session(http: httpx.AsyncClient, url: str) -> str:
    hello = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "model-choice", "version": "1"},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
    opened = await http.post(url, json=body)
    opened.raise_for_status()
    session = opened.headers["mcp-session-id"]
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await http.post(url, json=ready, headers=_session(session))
    return session


async def _mcp_call(
    http: httpx.AsyncClient, url: str, session: str, method: str, params: dict[str, Any]
) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 2, "method": method, "params": params}
    response = await http.post(url, json=body, headers=_session(session))
    response.raise_for_status()
    return mcp_answer(response, 2)


def _session(session: str) -> dict[str, str]:
    return {"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"}


def mcp_answer(response: httpx.Response, request_id: int) -> dict[str, Any]:
    """The JSON-RPC answer to `request_id` in a JSON or SSE response."""
    if response.headers["content-type"].startswith("application/json"):
        return dict(response.json())
    for line in response.text.splitlines():
        if line.startswith("data:"):
            message = json.loads(line.removeprefix("data:"))
            if message.get("id") == request_id:
                return dict(message)
    raise AssertionError(f"no answer to {request_id} in {response.text[:500]}")
