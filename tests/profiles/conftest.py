"""Profile and credential tests: Chromium, login sites, and replicas on PostgreSQL."""

from __future__ import annotations

from tests.store.conftest import start_replica  # replicas sharing one PostgreSQL database

__all__ = ["start_replica"]
