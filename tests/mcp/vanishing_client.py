"""An MCP client that vanishes: it starts a browser run over streamable HTTP (the initialize
handshake), prints ASKED when the run's first question reaches it, and waits to be killed, as a
desktop client does when its machine loses the network or the process dies.

    python -m tests.mcp.vanishing_client URL KEY TASK START_URL MODEL
"""

from __future__ import annotations

import asyncio
import sys

import httpx2
from mcp import Client, types
from mcp.client import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client


async def main(url: str, key: str, task: str, start_url: str, model: str) -> None:
    async def wait_forever(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        print("ASKED", flush=True)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    headers = {"Authorization": f"Bearer {key}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode="legacy", elicitation_callback=wait_forever) as client:
            arguments = {"task": task, "url": start_url, "options": {"model": model}}
            await client.call_tool("automate", arguments)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
