"""The one error a backend raises for a call the server refused, whatever carried it."""

from __future__ import annotations

from collections.abc import Mapping


class Refused(Exception):
    """A refused call: `status` is the gRPC status name ("NOT_FOUND", "INVALID_ARGUMENT"),
    `reason` the server's stable UPPER_SNAKE reason, `violations` bad fields by argument path."""

    def __init__(
        self,
        status: str,
        message: str,
        reason: str = "",
        violations: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.reason = reason
        self.violations = dict(violations or {})

    def describe(self) -> str:
        """One line for a tool result the model reads."""
        where = "; ".join(f"{field}: {text}" for field, text in self.violations.items())
        detail = where or self.message
        return f"{detail} ({self.reason or self.status})"
