"""A real server (production agents, Chromium, the fixture sites, scripted models) with keys of
two tenants, and MCP clients of the official Python SDK for it: streamable HTTP with a key, or
stdio through `outrider mcp`. A `Person` answers the client's elicitations and records them."""

from __future__ import annotations

import re
import sys
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx
import httpx2
from mcp import Client, StdioServerParameters, types
from mcp.client import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client

from tests.rest.support import RestCase
from tests.security.tenants import Keys
from tests.support.harness import REPO_ROOT

SCENARIOS = REPO_ROOT / "tests" / "fixtures" / "scenarios" / "mcp"
OUTRIDER = str(Path(sys.executable).with_name("outrider"))
Mode = Literal["legacy", "auto"]  # the initialize handshake (2025-11-25), or 2026-07-28


@dataclass
class McpCase:
    case: RestCase
    keys: Keys
    sites: str  # base URL of the fixture sites
    folder: Path

    @property
    def url(self) -> str:
        return f"{self.case.origin}/mcp"

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.case.grpc.port}"

    def model(self, name: str, **values: str) -> str:
        """`scripted:` a scenario of tests/fixtures/scenarios/mcp, `$NAME`s replaced."""
        text = (SCENARIOS / f"{name}.yaml").read_text()
        for key, value in values.items():
            text = text.replace(f"${key}", value)
        path = self.folder / f"{name}-{len(list(self.folder.iterdir()))}.yaml"
        path.write_text(text)
        return f"scripted:{path}"


@dataclass
class Person:
    """Answers forms with `values` (by field title), decides approvals with `decision`, or
    declines either (`form=None`, `decision=None`); keeps every question it was asked."""

    values: dict[str, Any] | None = None
    decision: str | None = "approve_once"
    reason: str = ""
    url_action: Literal["accept", "decline"] = "accept"
    asked: list[types.ElicitRequestParams] = field(default_factory=list)

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        self.asked.append(params)
        if isinstance(params, types.ElicitRequestURLParams):
            return types.ElicitResult(action=self.url_action)
        properties = params.requested_schema["properties"]
        if "decision" in properties:
            if self.decision is None:
                return types.ElicitResult(action="decline")
            answer = {"decision": self.decision, "reason": self.reason}
            return types.ElicitResult(action="accept", content=answer)
        if self.values is None:
            return types.ElicitResult(action="decline")
        content = {ref: self.values[spec["title"]] for ref, spec in properties.items()}
        return types.ElicitResult(action="accept", content=content)

    def forms(self) -> list[types.ElicitRequestFormParams]:
        return [p for p in self.asked if isinstance(p, types.ElicitRequestFormParams)]

    def pages(self) -> list[types.ElicitRequestURLParams]:
        return [p for p in self.asked if isinstance(p, types.ElicitRequestURLParams)]


@dataclass
class Progress:
    messages: list[str] = field(default_factory=list)
    values: list[float] = field(default_factory=list)

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.values.append(progress)
        self.messages.append(message or "")


def http_client(
    case: McpCase, key: str | None, mode: Mode, person: Person | None = None
) -> AbstractAsyncContextManager[Client]:
    return client_at(case.url, key, mode, person)


@asynccontextmanager
async def client_at(
    url: str, key: str | None, mode: Mode, person: Person | None = None
) -> AsyncIterator[Client]:
    """The Python SDK's client over streamable HTTP at `url` (an /mcp endpoint)."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    timeout = httpx2.Timeout(30.0, read=120.0)
    async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, elicitation_callback=person) as client:
            yield client


@asynccontextmanager
async def stdio_client(
    case: McpCase, key: str, mode: Mode, person: Person | None = None
) -> AsyncIterator[Client]:
    """`outrider mcp` as a desktop client starts it: a subprocess speaking on stdin/stdout."""
    bridge = StdioServerParameters(
        command=OUTRIDER,
        args=["mcp", "--target", case.target],
        env={"OUTRIDER_API_KEY": key},
    )
    async with Client(bridge, mode=mode, elicitation_callback=person) as client:
        yield client


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def answer_on_the_page(url: str, password: str) -> list[str]:
    """What a person's browser does with the link: open it, type the password, send it. Returns
    the input types of the fields the page asked for."""
    async with httpx.AsyncClient(timeout=30) as browser:
        page = await browser.get(url)
        assert page.status_code == 200, page.text
        refs = re.findall(r'name="field:([^"]+)"', page.text)
        kinds = re.findall(r'<input type="([a-z]+)" id="[^"]*" name="field:', page.text)
        origin = url.split("/console/")[0]
        sent = await browser.post(
            url, data={f"field:{ref}": password for ref in refs}, headers={"Origin": origin}
        )
        assert sent.status_code == 200 and "went to the agent" in sent.text, sent.text
    return kinds
