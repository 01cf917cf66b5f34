"""A real server for the A2A tests (both edges; the production agents on scripted models, the
fixture sites and research web; Debian's Chromium), keys for two tenants, and clients from the
official a2a-sdk, which nobody here wrote. One server per module."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml
from a2a.client import Client, ClientConfig, create_client
from a2a.types import a2a_pb2 as a2a
from google.protobuf import json_format

from outrider.server.grpc_edge.server import OutriderServer
from tests.console.support import (
    SCENARIOS,
    LogLines,
    capture_logs,
    console_settings,
    serve,
    two_tenants,
)
from tests.research.web import fixture_web
from tests.security.tenants import Keys
from tests.support.sites import fixture_sites


@dataclass
class A2AServer:
    origin: str
    keys: Keys
    sites: str
    web: str
    folder: Path
    server: OutriderServer
    logs: LogLines
    http: dict[str, httpx.AsyncClient]

    def model(self, scenario: str) -> str:
        """A scripted model replaying `scenario` (under fixtures/scenarios), $WEB replaced."""
        text = (SCENARIOS / scenario).read_text().replace("$WEB", self.web)
        data = yaml.safe_load(text)
        path = self.folder / f"{scenario.replace('/', '_')}.{time.monotonic_ns()}.yaml"
        data["transcript"] = str(path.with_suffix(".jsonl"))
        path.write_text(yaml.safe_dump(data))
        return f"scripted:{path}"

    def http_for(self, principal: str) -> httpx.AsyncClient:
        """An HTTP client sending `principal`'s key, as the A2A client's transport."""
        if principal not in self.http:
            self.http[principal] = httpx.AsyncClient(
                headers=self.keys.header(principal), timeout=httpx.Timeout(30, read=120)
            )
        return self.http[principal]

    async def client(self, principal: str, streaming: bool = True) -> Client:
        """The a2a-sdk client, from the agent card at the server's origin."""
        config = ClientConfig(streaming=streaming, httpx_client=self.http_for(principal))
        return await create_client(self.origin, config)


def message(text: str = "", data: dict[str, Any] | None = None, **fields: Any) -> a2a.Message:
    """A user message: text and data parts; `fields` set message fields (task_id, ...)."""
    parts = [a2a.Part(text=text)] if text else []
    if data is not None:
        part = a2a.Part(media_type="application/json")
        json_format.ParseDict(data, part.data)
        parts.append(part)
    fields.setdefault("message_id", f"m-{time.monotonic_ns()}")
    return a2a.Message(role=a2a.ROLE_USER, parts=parts, **fields)


def data_of(parts: Any) -> dict[str, Any]:
    """The first data part's object."""
    for part in parts:
        if part.WhichOneof("content") == "data":
            value = json_format.MessageToDict(part.data)
            assert isinstance(value, dict)
            return value
    raise AssertionError(f"no data part in {parts}")


def text_of(parts: Any) -> str:
    return "\n".join(part.text for part in parts if part.WhichOneof("content") == "text")


@asynccontextmanager
async def a2a_server(folder: Path) -> AsyncIterator[A2AServer]:
    async with AsyncExitStack() as stack:
        sites = stack.enter_context(fixture_sites())
        web = stack.enter_context(fixture_web())
        keys = two_tenants(folder)
        settings = console_settings(folder, keys, sites, web.url, web.port)
        server, origin = await serve(stack, settings)
        logs = capture_logs(stack)
        served = A2AServer(origin, keys, sites, web.url, folder, server, logs, {})
        yield served
        for http in served.http.values():
            await http.aclose()
