"""REST/SSE tests: a real server on loopback ports, driven over real HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.research.conftest import corpus, search_apis, search_behaviour, web
from tests.rest.support import RestCase, start_rest

# The research kit's fixtures (fixture web, corpus index, fake search APIs), for SDK research runs.
RESEARCH_FIXTURES = (corpus, search_apis, search_behaviour, web)

RestFactory = Callable[..., Awaitable[RestCase]]


@pytest.fixture
async def make_rest(tmp_path: Path) -> AsyncIterator[RestFactory]:
    started: list[RestCase] = []

    async def make(**kwargs: Any) -> RestCase:
        case = await start_rest(tmp_path / f"rest{len(started)}", **kwargs)
        started.append(case)
        return case

    yield make
    for case in reversed(started):
        await case.stop()


@pytest.fixture
async def rest(make_rest: RestFactory) -> RestCase:
    return await make_rest()
