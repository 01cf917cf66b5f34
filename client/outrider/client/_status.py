"""google.rpc error details, decoded without the googleapis-common-protos package.

The four messages the server sends (Status, ErrorInfo, BadRequest, RetryInfo) are declared here in
a private descriptor pool, so the client needs only grpcio and protobuf.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError

_F = descriptor_pb2.FieldDescriptorProto
_ANY_URL = "type.googleapis.com/google.rpc."


@dataclass(frozen=True)
class Details:
    """What a failed call's `grpc-status-details-bin` trailer says."""

    reason: str = ""
    domain: str = ""
    violations: dict[str, str] = field(default_factory=dict)
    retry_delay: timedelta | None = None


def _field(name: str, number: int, kind: int, type_name: str = "", repeated: bool = False) -> _F:
    label = _F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL
    proto = _F(name=name, number=number, type=kind, label=label)  # type: ignore[arg-type]
    if type_name:
        proto.type_name = type_name
    return proto


def _file() -> descriptor_pb2.FileDescriptorProto:
    fdp = descriptor_pb2.FileDescriptorProto(
        name="outrider_client/rpc_status.proto", package="google.rpc", syntax="proto3"
    )
    msg = fdp.message_type.add(name="Any")
    msg.field.extend([_field("type_url", 1, _F.TYPE_STRING), _field("value", 2, _F.TYPE_BYTES)])
    msg = fdp.message_type.add(name="Status")
    msg.field.extend(
        [
            _field("code", 1, _F.TYPE_INT32),
            _field("message", 2, _F.TYPE_STRING),
            _field("details", 3, _F.TYPE_MESSAGE, ".google.rpc.Any", repeated=True),
        ]
    )
    msg = fdp.message_type.add(name="ErrorInfo")
    msg.field.extend([_field("reason", 1, _F.TYPE_STRING), _field("domain", 2, _F.TYPE_STRING)])
    msg = fdp.message_type.add(name="FieldViolation")
    msg.field.extend([_field("field", 1, _F.TYPE_STRING), _field("description", 2, _F.TYPE_STRING)])
    msg = fdp.message_type.add(name="BadRequest")
    msg.field.append(
        _field("field_violations", 1, _F.TYPE_MESSAGE, ".google.rpc.FieldViolation", True)
    )
    msg = fdp.message_type.add(name="Duration")
    msg.field.extend([_field("seconds", 1, _F.TYPE_INT64), _field("nanos", 2, _F.TYPE_INT32)])
    msg = fdp.message_type.add(name="RetryInfo")
    msg.field.append(_field("retry_delay", 1, _F.TYPE_MESSAGE, ".google.rpc.Duration"))
    return fdp


@cache
def _classes() -> dict[str, Any]:
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file())
    names = ("Status", "ErrorInfo", "BadRequest", "RetryInfo")
    return {
        n: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"google.rpc.{n}"))
        for n in names
    }


def decode(blob: bytes) -> Details:
    """Details from a serialized google.rpc.Status; empty details when absent or unreadable."""
    classes = _classes()
    try:
        status = classes["Status"].FromString(blob)
        return _details(status.details, classes)
    except DecodeError:
        return Details()


def _details(anys: Any, classes: dict[str, Any]) -> Details:
    reason = domain = ""
    violations: dict[str, str] = {}
    delay: timedelta | None = None
    for detail in anys:
        kind = str(detail.type_url).removeprefix(_ANY_URL)
        if kind == "ErrorInfo":
            info = classes["ErrorInfo"].FromString(detail.value)
            reason, domain = info.reason, info.domain
        elif kind == "BadRequest":
            bad = classes["BadRequest"].FromString(detail.value)
            violations = {v.field: v.description for v in bad.field_violations}
        elif kind == "RetryInfo":
            retry = classes["RetryInfo"].FromString(detail.value).retry_delay
            delay = timedelta(seconds=retry.seconds, microseconds=retry.nanos // 1000)
    return Details(reason, domain, violations, delay)
