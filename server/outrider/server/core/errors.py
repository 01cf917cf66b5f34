"""The one error hierarchy of the core; each edge maps it to its own status codes in one table.

OutriderError                 base: a stable UPPER_SNAKE `reason` and a message
├── InvalidArgument           bad request; carries field violations
├── NotFound                  no such run, interaction or artifact
├── AlreadyExists             e.g. a start's request id already names a different request
├── FailedPrecondition        valid request, wrong moment (e.g. INTERACTION_EXPIRED)
├── OutOfRange                cursor beyond what exists or is retained
├── ResourceExhausted         too many active runs or starts; carries a retry hint
├── Unimplemented             the feature is not built yet
├── Unavailable               shutting down
├── Unauthenticated           missing or wrong API key or client certificate
└── PermissionDenied          the caller's key lacks the scope the call needs
"""

from __future__ import annotations

from dataclasses import dataclass

# What a caller sees of its own bad input: errors quote a short prefix of it, and list a bounded
# number of violations, so an error always fits gRPC's trailers (a megabyte name once did not).
QUOTE_CHARS = 40
MAX_VIOLATIONS = 20


def quoted(value: str) -> str:
    """`value` as a Python literal, cut to its first QUOTE_CHARS characters."""
    if len(value) <= QUOTE_CHARS:
        return repr(value)
    return f"{value[:QUOTE_CHARS]!r}... ({len(value):,} characters)"


@dataclass(frozen=True)
class FieldViolation:
    """One invalid field, named by its path in the request (e.g. "params.task")."""

    field: str
    description: str


class OutriderError(Exception):
    """Base of every error the core reports to callers; `metadata`: facts a caller may act on
    (google.rpc.ErrorInfo's metadata on gRPC, the body's "metadata" on HTTP)."""

    default_reason = "ERROR"

    def __init__(
        self, message: str, reason: str | None = None, metadata: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        self.metadata = metadata or {}


class InvalidArgument(OutriderError):
    default_reason = "INVALID_ARGUMENT"

    def __init__(self, violations: list[FieldViolation], message: str | None = None) -> None:
        kept = violations[:MAX_VIOLATIONS]
        if len(violations) > MAX_VIOLATIONS:
            more = len(violations) - MAX_VIOLATIONS
            kept.append(FieldViolation(kept[-1].field, f"and {more:,} more violations"))
        summary = message or "; ".join(f"{v.field}: {v.description}" for v in kept)
        super().__init__(summary)
        self.violations = kept

    @classmethod
    def single(cls, field: str, description: str) -> InvalidArgument:
        return cls([FieldViolation(field, description)])


class NotFound(OutriderError):
    default_reason = "NOT_FOUND"


class AlreadyExists(OutriderError):
    default_reason = "ALREADY_EXISTS"


class FailedPrecondition(OutriderError):
    default_reason = "FAILED_PRECONDITION"


class OutOfRange(OutriderError):
    default_reason = "OUT_OF_RANGE"


class ResourceExhausted(OutriderError):
    default_reason = "TOO_MANY_RUNS"

    def __init__(self, message: str, retry_after: float, reason: str | None = None) -> None:
        super().__init__(message, reason)
        self.retry_after = retry_after


class Unimplemented(OutriderError):
    default_reason = "NOT_IMPLEMENTED"


class Unavailable(OutriderError):
    default_reason = "SHUTTING_DOWN"


class Unauthenticated(OutriderError):
    default_reason = "UNAUTHENTICATED"


class PermissionDenied(OutriderError):
    default_reason = "MISSING_SCOPE"


class StartInDoubt(Unavailable):
    """The store lost the connection while committing a new run: it may or may not be saved."""

    default_reason = "START_IN_DOUBT"
