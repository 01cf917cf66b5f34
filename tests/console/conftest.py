"""Console tests: one real server and one Chromium per module (see support.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.console.support import Console, console_server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def console(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Console]:
    async with console_server(tmp_path_factory.mktemp("console")) as server:
        yield server
