"""What a desktop or IDE MCP client does with a server entry of its `mcp.json`: connect as the
entry says (streamable HTTP with its headers, or a process on stdio with its env), list the tools
and call one. Run by the first-contact test with a README entry; prints the tools and the report."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client


async def main(config: dict[str, Any]) -> None:
    (server,) = config["mcpServers"].values()
    if server.get("type") == "http":
        headers = server.get("headers", {})
        async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
            transport = streamable_http_client(server["url"], http_client=http)
            async with Client(transport) as client:
                await use(client)
    else:
        entry = StdioServerParameters(
            command=server["command"], args=server.get("args", []), env=server.get("env")
        )
        async with Client(entry) as client:
            await use(client)


async def use(client: Client) -> None:
    tools = [tool.name for tool in (await client.list_tools()).tools]
    result = await client.call_tool("research", {"query": "How is tea kept?", "mode": "fast"})
    print(" ".join(tools))
    print((result.structured_content or {}).get("report", result))


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
