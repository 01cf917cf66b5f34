"""Human-friendly quantities in settings: durations ("90m", "36h", "30d") and sizes ("500MB",
"5GiB"). A bare number is seconds or bytes, so scripts can keep passing plain numbers."""

from __future__ import annotations

import re

_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_NUMBER_AND_UNIT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


def parse_duration(value: object) -> object:
    """Seconds from "45", "45s", "90m", "36h", "30d" or "2w"; anything else is left to the
    field's own validation (which then reports it)."""
    if not isinstance(value, str):
        return value
    number, unit = _split(value)
    if number is None or unit.lower() not in _DURATION_UNITS | {"": 1}:
        raise ValueError(f"{value!r} is not a duration like 45s, 90m, 36h or 30d")
    return number * (_DURATION_UNITS.get(unit.lower(), 1))


def parse_size(value: object) -> object:
    """Bytes from "1048576", "500MB" (decimal) or "5GiB" (binary)."""
    if not isinstance(value, str):
        return value
    number, unit = _split(value)
    if number is None or unit.lower() not in _SIZE_UNITS:
        raise ValueError(f"{value!r} is not a size like 500MB or 5GiB")
    return int(number * _SIZE_UNITS[unit.lower()])


def _split(text: str) -> tuple[float | None, str]:
    match = _NUMBER_AND_UNIT.match(text)
    if match is None:
        return None, ""
    return float(match.group(1)), match.group(2)
