"""Secret values: what the model must never see, and the placeholders it sees instead.

Secrets come from the run's `data` (values under keys that name a secret, such as "password" or
"api_key", and any value written as {"$secret": "..."}), from values the caller typed into form
fields, and from password fields on the page. The model sees "{{secret:path}}" placeholders, and
the harness substitutes them only when filling. Every text leaving the harness (snapshots, events,
prompts) passes through `redact`.
"""

from __future__ import annotations

import re
from typing import Any

_SECRET_KEY = re.compile(r"pass(word|code|phrase)?|secret|token|api[_-]?key|cvv|cvc|pin|otp", re.I)
REDACTED = "[redacted]"
_PLACEHOLDER = re.compile(r"\{\{secret:([^}]+)\}\}")


class Secrets:
    def __init__(self) -> None:
        self._by_name: dict[str, str] = {}
        self._values: set[str] = set()

    def add(self, value: str, name: str | None = None) -> None:
        if value:
            self._values.add(value)
            if name is not None:
                self._by_name[name] = value

    def model_view(self, data: Any, path: str = "") -> Any:
        """`data` with secrets replaced by placeholders (and remembered)."""
        if isinstance(data, dict):
            if set(data) == {"$secret"}:
                return self._placeholder(path, str(data["$secret"]))
            return {k: self._child(k, v, path) for k, v in data.items()}
        if isinstance(data, list):
            return [self.model_view(v, f"{path}[{i}]") for i, v in enumerate(data)]
        return data

    def _child(self, key: str, value: Any, path: str) -> Any:
        child_path = f"{path}.{key}" if path else key
        if isinstance(value, str | int | float) and _SECRET_KEY.search(key):
            return self._placeholder(child_path, str(value))
        return self.model_view(value, child_path)

    def _placeholder(self, path: str, value: str) -> str:
        self.add(value, path)
        return f"{{{{secret:{path}}}}}"

    def substitute(self, text: str) -> str:
        """Placeholders replaced by the real values, for filling only."""
        return _PLACEHOLDER.sub(lambda m: self._by_name.get(m.group(1), m.group(0)), text)

    def is_secret_text(self, text: str) -> bool:
        return bool(_PLACEHOLDER.search(text)) or text in self._values

    def redact(self, text: str) -> str:
        for value in sorted(self._values, key=len, reverse=True):
            if len(value) >= 3:
                text = text.replace(value, REDACTED)
        return text
