import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from outrider.v1 import run_pb2 as _run_pb2
from outrider.v1 import run_event_pb2 as _run_event_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SessionState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SESSION_STATE_UNSPECIFIED: _ClassVar[SessionState]
    SESSION_STATE_IDLE: _ClassVar[SessionState]
    SESSION_STATE_RUNNING: _ClassVar[SessionState]
    SESSION_STATE_CONTROLLED: _ClassVar[SessionState]
    SESSION_STATE_ENDED: _ClassVar[SessionState]

class SessionEndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SESSION_END_REASON_UNSPECIFIED: _ClassVar[SessionEndReason]
    SESSION_END_REASON_IDLE: _ClassVar[SessionEndReason]
    SESSION_END_REASON_EXPIRED: _ClassVar[SessionEndReason]
    SESSION_END_REASON_ENDED: _ClassVar[SessionEndReason]
    SESSION_END_REASON_LOST: _ClassVar[SessionEndReason]
SESSION_STATE_UNSPECIFIED: SessionState
SESSION_STATE_IDLE: SessionState
SESSION_STATE_RUNNING: SessionState
SESSION_STATE_CONTROLLED: SessionState
SESSION_STATE_ENDED: SessionState
SESSION_END_REASON_UNSPECIFIED: SessionEndReason
SESSION_END_REASON_IDLE: SessionEndReason
SESSION_END_REASON_EXPIRED: SessionEndReason
SESSION_END_REASON_ENDED: SessionEndReason
SESSION_END_REASON_LOST: SessionEndReason

class Session(_message.Message):
    __slots__ = ("name", "kind", "state", "create_time", "update_time", "end_time", "idle_timeout", "max_life", "expire_time", "idle_expire_time", "start_url", "active_run", "run_count", "current_url", "current_title", "labels", "tenant", "created_by", "end_reason", "end_message", "ended_by", "last_sequence", "profile")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    IDLE_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    MAX_LIFE_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    IDLE_EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    START_URL_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_RUN_FIELD_NUMBER: _ClassVar[int]
    RUN_COUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_URL_FIELD_NUMBER: _ClassVar[int]
    CURRENT_TITLE_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    END_REASON_FIELD_NUMBER: _ClassVar[int]
    END_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ENDED_BY_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: _run_pb2.RunKind
    state: SessionState
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    idle_timeout: _duration_pb2.Duration
    max_life: _duration_pb2.Duration
    expire_time: _timestamp_pb2.Timestamp
    idle_expire_time: _timestamp_pb2.Timestamp
    start_url: str
    active_run: str
    run_count: int
    current_url: str
    current_title: str
    labels: _containers.ScalarMap[str, str]
    tenant: str
    created_by: str
    end_reason: SessionEndReason
    end_message: str
    ended_by: str
    last_sequence: int
    profile: str
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[_Union[_run_pb2.RunKind, str]] = ..., state: _Optional[_Union[SessionState, str]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., idle_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., max_life: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., idle_expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., start_url: _Optional[str] = ..., active_run: _Optional[str] = ..., run_count: _Optional[int] = ..., current_url: _Optional[str] = ..., current_title: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., tenant: _Optional[str] = ..., created_by: _Optional[str] = ..., end_reason: _Optional[_Union[SessionEndReason, str]] = ..., end_message: _Optional[str] = ..., ended_by: _Optional[str] = ..., last_sequence: _Optional[int] = ..., profile: _Optional[str] = ...) -> None: ...

class SessionEvent(_message.Message):
    __slots__ = ("session", "sequence", "time", "invocation", "run_event", "session_started", "session_ended")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    INVOCATION_FIELD_NUMBER: _ClassVar[int]
    RUN_EVENT_FIELD_NUMBER: _ClassVar[int]
    SESSION_STARTED_FIELD_NUMBER: _ClassVar[int]
    SESSION_ENDED_FIELD_NUMBER: _ClassVar[int]
    session: str
    sequence: int
    time: _timestamp_pb2.Timestamp
    invocation: str
    run_event: _run_event_pb2.RunEvent
    session_started: SessionStarted
    session_ended: SessionEnded
    def __init__(self, session: _Optional[str] = ..., sequence: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., invocation: _Optional[str] = ..., run_event: _Optional[_Union[_run_event_pb2.RunEvent, _Mapping]] = ..., session_started: _Optional[_Union[SessionStarted, _Mapping]] = ..., session_ended: _Optional[_Union[SessionEnded, _Mapping]] = ...) -> None: ...

class SessionStarted(_message.Message):
    __slots__ = ("url", "title")
    URL_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    url: str
    title: str
    def __init__(self, url: _Optional[str] = ..., title: _Optional[str] = ...) -> None: ...

class SessionEnded(_message.Message):
    __slots__ = ("reason", "message", "ended_by")
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ENDED_BY_FIELD_NUMBER: _ClassVar[int]
    reason: SessionEndReason
    message: str
    ended_by: str
    def __init__(self, reason: _Optional[_Union[SessionEndReason, str]] = ..., message: _Optional[str] = ..., ended_by: _Optional[str] = ...) -> None: ...
