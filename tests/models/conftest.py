"""Model-provider tests: the real SDKs against local fake servers of each provider's protocol."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.models.dialects import DIALECTS, Dialect
from tests.models.fake_providers import FakeProvider, serve
from tests.research.conftest import (  # noqa: F401  (the research run's fixtures)
    corpus,
    research_case,
    search_apis,
    search_behaviour,
    web,
)


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with serve(FakeProvider()) as provider:
        yield provider


@pytest.fixture(params=DIALECTS, ids=[d.provider for d in DIALECTS])
def dialect(request: pytest.FixtureRequest) -> Dialect:
    dialect: Dialect = request.param
    return dialect
