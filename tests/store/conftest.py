"""Store-level tests: the `Store` contract on both backends, and their migrations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from outrider.server.core.storage import Store, open_store
from tests.support.harness import settings_for_tests


@pytest.fixture
def store(store_backend: str, tmp_path: Path) -> Iterator[Store]:
    """A fresh store of each backend (OUTRIDER_DATABASE_URL is set by `store_backend`)."""
    opened = open_store(settings_for_tests(tmp_path))
    yield opened
    opened.close()
