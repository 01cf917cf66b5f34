"""MCP over plain HTTP, as a client without an SDK sends it: the initialize handshake, then
JSON-RPC requests in the session, answers read from JSON or SSE."""

from __future__ import annotations

import json
from typing import Any

import httpx

MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


async def mcp_session(http: httpx.AsyncClient, url: str) -> str:
    hello = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
    opened = await http.post(url, json=body)
    opened.raise_for_status()
    session = opened.headers["mcp-session-id"]
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await http.post(url, json=ready, headers=_session(session))
    return session


async def mcp_call(
    http: httpx.AsyncClient, url: str, session: str, method: str, params: dict[str, Any]
) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 2, "method": method, "params": params}
    response = await http.post(url, json=body, headers=_session(session))
    response.raise_for_status()
    return mcp_answer(response, 2)


def _session(session: str) -> dict[str, str]:
    return {"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"}


def mcp_answer(response: httpx.Response, request_id: int | None) -> dict[str, Any]:
    """The JSON-RPC answer to `request_id` (None: to whichever id) in a JSON or SSE response."""
    if response.headers["content-type"].startswith("application/json"):
        return dict(response.json())
    for line in response.text.splitlines():
        if line.startswith("data:"):
            message = json.loads(line.removeprefix("data:"))
            if "id" in message and request_id in (None, message["id"]):
                return dict(message)
    raise AssertionError(f"no answer to {request_id} in {response.text[:500]}")
