"""One research start with a chosen model (options.model) on each door a caller has: gRPC,
REST, MCP and A2A, over their wires. Each answers the refusal's field violation as
(field, description), or None when the door started the run."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
import httpx

from outrider.v1 import params_pb2, run_service_pb2, run_service_pb2_grpc
from tests.support.harness import rich_error
from tests.support.raw_mcp import MCP_HEADERS, mcp_call, mcp_session

Violation = tuple[str, str] | None
QUERY = "Why do honey bee colonies die?"


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
        async with httpx.AsyncClient(timeout=120, headers=MCP_HEADERS | _auth(key)) as http:
            session = await mcp_session(http, f"{self.origin}/mcp")
            call = {"name": "research", "arguments": arguments}
            answer = await mcp_call(http, f"{self.origin}/mcp", session, "tools/call", call)
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
