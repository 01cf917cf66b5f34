"""A2A tests: one real server per module (see support.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.a2a.support import A2AServer, a2a_server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[A2AServer]:
    async with a2a_server(tmp_path_factory.mktemp("a2a")) as server:
        yield server
