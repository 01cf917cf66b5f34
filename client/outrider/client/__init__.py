"""Outrider's Python client: `AsyncClient` (asyncio) and `Client` (blocking), over gRPC with only
grpcio and protobuf. Events are the contract's `outrider.v1.RunEvent` messages."""

from outrider.client._resume import ResumePolicy
from outrider.client._retry import StartRetry
from outrider.client.aio import AsyncClient, Page
from outrider.client.browser import AsyncBrowserControl
from outrider.client.errors import (
    AnswerRefusedError,
    CallCancelledError,
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    OutOfRangeError,
    OutriderClientError,
    PermissionDeniedError,
    ResourceExhaustedError,
    RPCError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
)
from outrider.client.events import (
    approval_request,
    closed_unanswered,
    event_name,
    form_errors,
    form_request,
    payload,
)
from outrider.client.requests import Options, automate_params, research_params
from outrider.client.session import Answer, AsyncInteractiveSession
from outrider.client.sync import Client, InteractiveSession
from outrider.client.tls import Tls
from outrider.client.vault import AsyncCredentials, AsyncProfiles
from outrider.client.webhooks import AsyncWebhooks

__all__ = [
    "Answer",
    "AnswerRefusedError",
    "AsyncBrowserControl",
    "AsyncClient",
    "AsyncCredentials",
    "AsyncInteractiveSession",
    "AsyncProfiles",
    "AsyncWebhooks",
    "CallCancelledError",
    "Client",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "InteractiveSession",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "Options",
    "OutOfRangeError",
    "OutriderClientError",
    "Page",
    "PermissionDeniedError",
    "RPCError",
    "ResourceExhaustedError",
    "ResumePolicy",
    "StartRetry",
    "Tls",
    "UnauthenticatedError",
    "UnavailableError",
    "UnimplementedError",
    "approval_request",
    "automate_params",
    "closed_unanswered",
    "event_name",
    "form_errors",
    "form_request",
    "payload",
    "research_params",
]
