"""MCP tests: one real server per module (production agents, Chromium, scripted models) with
keys of two tenants, the fixture sites on loopback, and MCP clients nobody here wrote."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit

import pytest
import pytest_asyncio

from tests.mcp.support import McpCase
from tests.rest.support import start_rest
from tests.security.tenants import two_tenants
from tests.support.sites import fixture_sites


@pytest.fixture(scope="module")
def module_sites() -> Iterator[str]:
    with fixture_sites() as base_url:
        yield base_url


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def mcp_case(
    tmp_path_factory: pytest.TempPathFactory, module_sites: str
) -> AsyncIterator[McpCase]:
    folder = tmp_path_factory.mktemp("mcp")
    keys = two_tenants(folder)
    case = await start_rest(
        folder / "data",
        production=True,
        keys_file=keys.file,
        network_allow=urlsplit(module_sites).netloc,
    )
    scenarios = folder / "scenarios"
    scenarios.mkdir()
    try:
        yield McpCase(case, keys, module_sites, scenarios)
    finally:
        await case.stop()
