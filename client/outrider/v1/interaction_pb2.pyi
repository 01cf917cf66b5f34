import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from outrider.v1 import automate_events_pb2 as _automate_events_pb2
from outrider.v1 import run_event_pb2 as _run_event_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InteractionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INTERACTION_KIND_UNSPECIFIED: _ClassVar[InteractionKind]
    INTERACTION_KIND_FORM_DATA: _ClassVar[InteractionKind]
    INTERACTION_KIND_APPROVAL: _ClassVar[InteractionKind]

class InteractionState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INTERACTION_STATE_UNSPECIFIED: _ClassVar[InteractionState]
    INTERACTION_STATE_PENDING: _ClassVar[InteractionState]
    INTERACTION_STATE_RESOLVED: _ClassVar[InteractionState]
    INTERACTION_STATE_EXPIRED: _ClassVar[InteractionState]
    INTERACTION_STATE_CANCELLED: _ClassVar[InteractionState]
INTERACTION_KIND_UNSPECIFIED: InteractionKind
INTERACTION_KIND_FORM_DATA: InteractionKind
INTERACTION_KIND_APPROVAL: InteractionKind
INTERACTION_STATE_UNSPECIFIED: InteractionState
INTERACTION_STATE_PENDING: InteractionState
INTERACTION_STATE_RESOLVED: InteractionState
INTERACTION_STATE_EXPIRED: InteractionState
INTERACTION_STATE_CANCELLED: InteractionState

class Interaction(_message.Message):
    __slots__ = ("name", "run", "kind", "state", "create_time", "expire_time", "resolve_time", "form_data", "approval", "decision", "declined", "resolved_by", "answer_url")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    RESOLVE_TIME_FIELD_NUMBER: _ClassVar[int]
    FORM_DATA_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    DECLINED_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_BY_FIELD_NUMBER: _ClassVar[int]
    ANSWER_URL_FIELD_NUMBER: _ClassVar[int]
    name: str
    run: str
    kind: InteractionKind
    state: InteractionState
    create_time: _timestamp_pb2.Timestamp
    expire_time: _timestamp_pb2.Timestamp
    resolve_time: _timestamp_pb2.Timestamp
    form_data: _automate_events_pb2.InteractiveFormDataRequest
    approval: _run_event_pb2.ApprovalRequested
    decision: _run_event_pb2.ApprovalDecision
    declined: bool
    resolved_by: str
    answer_url: str
    def __init__(self, name: _Optional[str] = ..., run: _Optional[str] = ..., kind: _Optional[_Union[InteractionKind, str]] = ..., state: _Optional[_Union[InteractionState, str]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., resolve_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., form_data: _Optional[_Union[_automate_events_pb2.InteractiveFormDataRequest, _Mapping]] = ..., approval: _Optional[_Union[_run_event_pb2.ApprovalRequested, _Mapping]] = ..., decision: _Optional[_Union[_run_event_pb2.ApprovalDecision, str]] = ..., declined: _Optional[bool] = ..., resolved_by: _Optional[str] = ..., answer_url: _Optional[str] = ...) -> None: ...

class FieldValue(_message.Message):
    __slots__ = ("ref", "value")
    REF_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    ref: str
    value: str
    def __init__(self, ref: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
