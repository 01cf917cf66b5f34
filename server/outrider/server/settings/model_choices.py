"""What callers may name in a run's `options.model`, as the operator writes it: the models
offered by name (OUTRIDER_MODELS, and a tenant's `models` in the key file) and the folders whose
scripted scenarios callers may name (OUTRIDER_SCRIPTED_MODEL_DIRS). Parsed here; a start is
checked against them by core/validation.py's `chosen_model`."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_SPEC = re.compile(r"[a-z][a-z0-9-]*:\S{1,500}")


def offer(value: object, where: str) -> dict[str, str]:
    """Name -> spec from comma-separated `name=provider:model` or `provider:model` (offered under
    its own spec), a JSON object or a mapping (a list of specs in a key file); ValueError naming
    the entry that is neither."""
    if isinstance(value, str):
        text = value.strip()
        value = json.loads(text) if text.startswith("{") else _entries(text.split(","))
    elif isinstance(value, list | tuple):
        value = _entries(value)
    if not isinstance(value, dict):
        raise ValueError(f"{where}: models are a table of name -> spec, or a list of specs")
    for name, spec in value.items():
        _check(name, spec, where)
    return dict(value)


def _entries(entries: Sequence[object]) -> dict[object, object]:
    offered: dict[object, object] = {}
    for entry in entries:
        if not isinstance(entry, str):
            offered[entry] = entry  # refused by _check
        elif entry.strip():
            name, equals, spec = entry.strip().partition("=")
            if equals and _NAME.fullmatch(name.strip()):
                offered[name.strip()] = spec.strip()
            else:
                offered[entry.strip()] = entry.strip()
    return offered


def _check(name: object, spec: object, where: str) -> None:
    if not isinstance(name, str) or not isinstance(spec, str) or not _SPEC.fullmatch(spec):
        raise ValueError(
            f"{where}: {spec!r} (model {name!r}) is not a model spec such as openai:gpt-4.1-mini"
        )
    if name != spec and not _NAME.fullmatch(name):
        raise ValueError(f"{where}: model name {name!r} must be 1-64 letters, digits, . _ or -")


def folders(value: object) -> object:
    """Comma-separated absolute folders; a relative one would mean whatever the working
    directory is, so it is refused."""
    if isinstance(value, str):
        value = tuple(Path(part.strip()) for part in value.split(",") if part.strip())
    if isinstance(value, list | tuple):
        for folder in value:
            if not Path(folder).is_absolute():
                raise ValueError(f"{str(folder)!r} is not an absolute folder path")
    return value
