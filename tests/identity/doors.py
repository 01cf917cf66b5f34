"""One call through each door (gRPC, REST, A2A, MCP, the console) with a bearer credential, and
what the door answered: let in, unauthenticated (401) or denied (403), with its reason."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import grpc
import httpx

from outrider.v1 import run_service_pb2 as rs
from outrider.v1 import run_service_pb2_grpc
from tests.identity.support import API, IdentityCase
from tests.support.harness import rich_error

MCP_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "identity-tests", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@dataclass(frozen=True)
class Answer:
    outcome: str  # "ok", "unauthenticated" or "denied"
    reason: str = ""
    message: str = ""
    challenge: str = ""  # WWW-Authenticate

    @property
    def refused(self) -> bool:
        return self.outcome != "ok"


def _from_http(response: httpx.Response) -> Answer:
    outcome = {401: "unauthenticated", 403: "denied"}.get(response.status_code, "ok")
    if outcome == "ok":
        assert response.status_code == 200, response.text
        return Answer("ok")
    body = response.json() if "json" in response.headers.get("content-type", "") else {}
    error = body.get("error", {}) if isinstance(body, dict) else {}
    data = error.get("data") or [{}]
    reason = error.get("reason") or (data[0].get("reason", "") if isinstance(data, list) else "")
    challenge = response.headers.get("www-authenticate", "")
    return Answer(outcome, str(reason), str(error.get("message", response.text)), challenge)


async def grpc_door(case: IdentityCase, credential: str) -> Answer:
    async with grpc.aio.insecure_channel(case.grpc_target) as channel:
        stub = run_service_pb2_grpc.RunServiceStub(channel)
        metadata = (("authorization", f"Bearer {credential}"),)
        try:
            await stub.ListRuns(rs.ListRunsRequest(), metadata=metadata)
        except grpc.aio.AioRpcError as error:
            found = rich_error(error)
            kinds = {
                grpc.StatusCode.UNAUTHENTICATED: "unauthenticated",
                grpc.StatusCode.PERMISSION_DENIED: "denied",
            }
            assert found.code in kinds, found
            return Answer(kinds[found.code], found.reason, found.message)
    return Answer("ok")


async def rest_door(case: IdentityCase, credential: str) -> Answer:
    async with httpx.AsyncClient(timeout=30) as http:
        answer = await http.get(
            f"{case.origin}/v1/runs", headers={"Authorization": f"Bearer {credential}"}
        )
    return _from_http(answer)


async def a2a_door(case: IdentityCase, credential: str) -> Answer:
    body = {"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}
    headers = {"Authorization": f"Bearer {credential}", "A2A-Version": "1.0"}
    async with httpx.AsyncClient(timeout=30) as http:
        answer = await http.post(f"{case.origin}/a2a", json=body, headers=headers)
    return _from_http(answer)


async def mcp_door(case: IdentityCase, credential: str) -> Answer:
    headers = MCP_HEADERS | {"Authorization": f"Bearer {credential}"}
    async with httpx.AsyncClient(timeout=30) as http:
        answer = await http.post(case.mcp_url, json=MCP_INITIALIZE, headers=headers)
    return _from_http(answer)


async def console_door(case: IdentityCase, credential: str) -> Answer:
    headers = {"Authorization": f"Bearer {credential}"}
    async with httpx.AsyncClient(timeout=30) as http:
        answer = await http.get(f"{case.origin}/console/runs-table", headers=headers)
    if answer.status_code in (401, 403):
        return Answer({401: "unauthenticated", 403: "denied"}[answer.status_code], "", answer.text)
    assert answer.status_code == 200, answer.text
    return Answer("ok")


Door = Callable[[IdentityCase, str], Awaitable[Answer]]
DOORS: dict[str, Door] = {
    "grpc": grpc_door,
    "rest": rest_door,
    "a2a": a2a_door,
    "console": console_door,
    "mcp": mcp_door,
}


def audience_of(case: IdentityCase, door: str) -> str:
    """The audience a token must carry at `door`."""
    return case.mcp_url if door == "mcp" else API
