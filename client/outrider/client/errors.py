"""The client's exceptions. No `grpc` type ever reaches the caller.

OutriderClientError             anything this package raises
├── RPCError                    the server (or the transport) refused or failed a call
│   ├── InvalidArgumentError    .violations: {field: description}
│   ├── NotFoundError
│   ├── FailedPreconditionError .reason, e.g. INTERACTION_EXPIRED, MODEL_NOT_CONFIGURED
│   ├── OutOfRangeError         e.g. a cursor beyond the newest event
│   ├── ResourceExhaustedError  .retry_delay: timedelta | None
│   ├── UnauthenticatedError
│   ├── PermissionDeniedError
│   ├── UnimplementedError
│   ├── UnavailableError        the server is down, shutting down, or unreachable
│   ├── DeadlineExceededError
│   ├── CallCancelledError
│   └── InternalError           also UNKNOWN, DATA_LOSS and anything else
└── AnswerRefusedError          an answer sent on an interactive session was not taken
"""

from __future__ import annotations

from datetime import timedelta

from outrider.client._status import Details


class OutriderClientError(Exception):
    """Base of every exception of outrider.client."""


class RPCError(OutriderClientError):
    """A failed call: `status` is the gRPC status name ("NOT_FOUND"), `reason` the server's
    stable UPPER_SNAKE reason from google.rpc.ErrorInfo."""

    def __init__(self, status: str, message: str, details: Details | None = None) -> None:
        details = details or Details()
        super().__init__(
            f"{status}: {message}" + (f" [{details.reason}]" if details.reason else "")
        )
        self.status = status
        self.message = message
        self.reason = details.reason
        self.domain = details.domain
        self.violations: dict[str, str] = dict(details.violations)
        self.retry_delay: timedelta | None = details.retry_delay


class InvalidArgumentError(RPCError):
    pass


class NotFoundError(RPCError):
    pass


class FailedPreconditionError(RPCError):
    pass


class OutOfRangeError(RPCError):
    pass


class ResourceExhaustedError(RPCError):
    pass


class UnauthenticatedError(RPCError):
    pass


class PermissionDeniedError(RPCError):
    pass


class UnimplementedError(RPCError):
    pass


class UnavailableError(RPCError):
    pass


class DeadlineExceededError(RPCError):
    pass


class CallCancelledError(RPCError):
    pass


class InternalError(RPCError):
    pass


class AnswerRefusedError(OutriderClientError):
    """The server did not take an answer: `reason` is e.g. INTERACTION_ALREADY_RESOLVED."""

    def __init__(self, interaction_id: str, reason: str, message: str) -> None:
        super().__init__(f"answer to {interaction_id} refused: {reason}: {message}")
        self.interaction_id = interaction_id
        self.reason = reason
        self.message = message


ERRORS_BY_STATUS: dict[str, type[RPCError]] = {
    "INVALID_ARGUMENT": InvalidArgumentError,
    "NOT_FOUND": NotFoundError,
    "FAILED_PRECONDITION": FailedPreconditionError,
    "OUT_OF_RANGE": OutOfRangeError,
    "RESOURCE_EXHAUSTED": ResourceExhaustedError,
    "UNAUTHENTICATED": UnauthenticatedError,
    "PERMISSION_DENIED": PermissionDeniedError,
    "UNIMPLEMENTED": UnimplementedError,
    "UNAVAILABLE": UnavailableError,
    "DEADLINE_EXCEEDED": DeadlineExceededError,
    "CANCELLED": CallCancelledError,
}


def error_for(status: str, message: str, details: Details | None = None) -> RPCError:
    return ERRORS_BY_STATUS.get(status, InternalError)(status, message, details)
