"""Query parameters and headers of the JSON and resume routes."""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.descriptor import EnumDescriptor
from starlette.requests import Request

from outrider.server.core.errors import InvalidArgument
from outrider.server.rest_edge.enums import enum_choices, enum_number
from outrider.v1 import interaction_pb2, run_pb2, session_pb2

_MAX_INT64 = 2**63 - 1


@dataclass(frozen=True)
class Page:
    size: int
    token: str
    kind: int


def truthy(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


def cursor(request: Request) -> int:
    """The sequence to resume after: the `Last-Event-ID` header, else `?after=`, else 0."""
    header = request.headers.get("last-event-id")
    if header is not None and header.strip():
        return _non_negative(header, "Last-Event-ID")
    return _non_negative(request.query_params.get("after", "0"), "after")


def page(request: Request) -> Page:
    size = _non_negative(request.query_params.get("pageSize", "0"), "pageSize")
    kind_text = request.query_params.get("kind", "")
    kind = _enum(run_pb2.RunKind.DESCRIPTOR, kind_text, "kind") if kind_text else 0
    return Page(size, request.query_params.get("pageToken", ""), kind)


def run_states(request: Request) -> list[int]:
    return _states(request, run_pb2.RunState.DESCRIPTOR)


def session_states(request: Request) -> list[int]:
    return _states(request, session_pb2.SessionState.DESCRIPTOR)


def interaction_states(request: Request) -> list[int]:
    return _states(request, interaction_pb2.InteractionState.DESCRIPTOR)


def _states(request: Request, enum: EnumDescriptor) -> list[int]:
    return [_enum(enum, text, "state") for text in request.query_params.getlist("state")]


def _enum(enum: EnumDescriptor, text: str, name: str) -> int:
    number = enum_number(enum, text)
    if number is None:
        choices = ", ".join(enum_choices(enum))
        raise InvalidArgument.single(name, f"must be one of {choices}")
    return number


def _non_negative(text: str, name: str) -> int:
    value = text.strip()
    # Length first: int() of thousands of digits raises (Python's digit limit) or takes long.
    if len(value) > 19 or not value.isascii() or not value.isdigit() or int(value) > _MAX_INT64:
        raise InvalidArgument.single(name, "must be a non-negative integer")
    return int(value)
