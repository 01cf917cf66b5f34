"""A profile's contents: Playwright's storage state (cookies, session-only ones included, and per
origin its localStorage and IndexedDB) as JSON, and what callers may know of it: the origins it
covers and how many cookies it holds. Only these figures ever leave the vault."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

StorageState = dict[str, Any]  # {"cookies": [...], "origins": [{"origin", "localStorage", ...}]}


@dataclass(frozen=True)
class StateSummary:
    origins: tuple[str, ...]
    cookie_count: int
    size: int  # bytes of the encoded state


def encode_state(state: StorageState) -> bytes:
    return json.dumps(state, separators=(",", ":"), sort_keys=True).encode()


def decode_state(data: bytes) -> StorageState:
    state = json.loads(data)
    if not isinstance(state, dict):
        raise ValueError("a profile's state is not a JSON object")
    return state


def summarise(state: StorageState, encoded: bytes) -> StateSummary:
    """Origins with storage, and each cookie's site as an origin (a cookie names a domain, not a
    port: https for a secure cookie, http otherwise)."""
    cookies = [c for c in state.get("cookies", []) if isinstance(c, dict)]
    origins = {str(o["origin"]) for o in state.get("origins", []) if isinstance(o, dict)}
    for cookie in cookies:
        scheme = "https" if cookie.get("secure") else "http"
        origins.add(f"{scheme}://{str(cookie.get('domain', '')).lstrip('.')}")
    return StateSummary(tuple(sorted(origins)), len(cookies), len(encoded))
