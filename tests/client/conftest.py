from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from outrider.client import AsyncClient
from tests.support.harness import Harness, ServerProcess


@pytest.fixture
async def client(harness: Harness) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(harness.target) as client:
        yield client


@pytest.fixture
def server_process(tmp_path: Path) -> Iterator[ServerProcess]:
    """The server in a child process, for blocking clients (the test's loop is not running)."""
    server = ServerProcess(tmp_path / "process")
    server.start()
    yield server
    server.close()
