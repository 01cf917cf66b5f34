"""Every core test runs against both store backends, SQLite and PostgreSQL."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _both_backends(store_backend: str) -> str:
    return store_backend
