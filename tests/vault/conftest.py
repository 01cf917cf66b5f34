"""Vault tests: the core's profiles and credentials on both store backends."""

from __future__ import annotations

from tests.store.conftest import store  # the store of each backend

__all__ = ["store"]
