"""Secret values: what the model must never see, and the placeholders it sees instead.

Secrets come from the run's `data` (values under keys that name a secret, such as "password" or
"api_key", and any value written as {"$secret": "..."}), from values the caller typed into form
fields, and from password fields on the page. The model sees "{{secret:path}}" placeholders, and
the harness substitutes them only when filling. Every value lands in the run's one Redactor,
which every text leaving the harness (events, prompts, logs) passes through.
"""

from __future__ import annotations

import re
from typing import Any

from outrider.server.core.secrets.redaction import REDACTED, Redactor, mask_secrets

__all__ = ["REDACTED", "Secrets"]

_PLACEHOLDER = re.compile(r"\{\{secret:([^}]+)\}\}")


class Secrets:
    def __init__(self, redactor: Redactor | None = None) -> None:
        self._by_name: dict[str, str] = {}
        self.redactor = redactor if redactor is not None else Redactor()

    def add(self, value: str, name: str | None = None) -> None:
        if value:
            self.redactor.add(value)
            if name is not None:
                self._by_name[name] = value

    def model_view(self, data: Any) -> Any:
        """`data` with secrets replaced by placeholders (and remembered)."""
        found: dict[str, str] = {}
        view = mask_secrets(data, found)
        for path, value in found.items():
            self.add(value, path)
        return view

    def substitute(self, text: str) -> str:
        """Placeholders replaced by the real values, for filling only."""
        return _PLACEHOLDER.sub(lambda m: self._by_name.get(m.group(1), m.group(0)), text)

    def is_secret_text(self, text: str) -> bool:
        return bool(_PLACEHOLDER.search(text)) or self.redactor.knows(text)

    def redact(self, text: str) -> str:
        return self.redactor.text(text)
