"""Typed reads of JSON request fields that collect every violation before failing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from outrider.server.core.errors import FieldViolation, InvalidArgument

_INT32_MAX = 2**31 - 1


@dataclass
class Reader:
    """Reads fields of one JSON object; `at` prefixes the names in violations ("options.")."""

    body: dict[str, Any]
    at: str = ""
    violations: list[FieldViolation] = field(default_factory=list)

    def _get(self, *names: str) -> tuple[str, Any]:
        for name in names:
            if name in self.body and self.body[name] is not None:
                return name, self.body[name]
        return names[0], None

    def _bad(self, name: str, description: str) -> None:
        self.violations.append(FieldViolation(self.at + name, description))

    def string(self, *names: str) -> str:
        name, value = self._get(*names)
        if value is None or isinstance(value, str):
            return value or ""
        self._bad(name, "must be a string")
        return ""

    def boolean(self, *names: str) -> bool:
        name, value = self._get(*names)
        if value is None or isinstance(value, bool):
            return bool(value)
        self._bad(name, "must be true or false")
        return False

    def integer(self, *names: str) -> int | None:
        name, value = self._get(*names)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self._bad(name, "must be an integer")
        elif abs(value) > _INT32_MAX:
            self._bad(name, f"must be between {-_INT32_MAX} and {_INT32_MAX}")
        else:
            return int(value)
        return None

    def strings(self, *names: str) -> list[str]:
        name, value = self._get(*names)
        if value is None:
            return []
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
        self._bad(name, "must be an array of strings")
        return []

    def obj(self, *names: str) -> dict[str, Any] | None:
        name, value = self._get(*names)
        if value is None or isinstance(value, dict):
            return value
        self._bad(name, "must be a JSON object")
        return None

    def objects(self, *names: str) -> list[dict[str, Any]]:
        name, value = self._get(*names)
        if value is None:
            return []
        if isinstance(value, list) and all(isinstance(v, dict) for v in value):
            return value
        self._bad(name, "must be an array of objects")
        return []

    def nested(self, *names: str) -> Reader:
        """A reader of an object field that reports into the same violation list."""
        name = names[0]
        return Reader(self.obj(*names) or {}, f"{self.at}{name}.", self.violations)

    def check(self) -> None:
        if self.violations:
            raise InvalidArgument(list(self.violations))
