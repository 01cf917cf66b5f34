import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TakeoverOrigin(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TAKEOVER_ORIGIN_UNSPECIFIED: _ClassVar[TakeoverOrigin]
    TAKEOVER_ORIGIN_AGENT: _ClassVar[TakeoverOrigin]
    TAKEOVER_ORIGIN_PERSON: _ClassVar[TakeoverOrigin]

class TakeoverEnding(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TAKEOVER_ENDING_UNSPECIFIED: _ClassVar[TakeoverEnding]
    TAKEOVER_ENDING_HANDED_BACK: _ClassVar[TakeoverEnding]
    TAKEOVER_ENDING_DECLINED: _ClassVar[TakeoverEnding]
    TAKEOVER_ENDING_EXPIRED: _ClassVar[TakeoverEnding]
    TAKEOVER_ENDING_RUN_ENDED: _ClassVar[TakeoverEnding]
TAKEOVER_ORIGIN_UNSPECIFIED: TakeoverOrigin
TAKEOVER_ORIGIN_AGENT: TakeoverOrigin
TAKEOVER_ORIGIN_PERSON: TakeoverOrigin
TAKEOVER_ENDING_UNSPECIFIED: TakeoverEnding
TAKEOVER_ENDING_HANDED_BACK: TakeoverEnding
TAKEOVER_ENDING_DECLINED: TakeoverEnding
TAKEOVER_ENDING_EXPIRED: TakeoverEnding
TAKEOVER_ENDING_RUN_ENDED: TakeoverEnding

class TakeoverRequested(_message.Message):
    __slots__ = ("takeover_id", "iteration_id", "origin", "reason", "url", "expire_time", "requested_by")
    TAKEOVER_ID_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    takeover_id: str
    iteration_id: str
    origin: TakeoverOrigin
    reason: str
    url: str
    expire_time: _timestamp_pb2.Timestamp
    requested_by: str
    def __init__(self, takeover_id: _Optional[str] = ..., iteration_id: _Optional[str] = ..., origin: _Optional[_Union[TakeoverOrigin, str]] = ..., reason: _Optional[str] = ..., url: _Optional[str] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., requested_by: _Optional[str] = ...) -> None: ...

class TakeoverStarted(_message.Message):
    __slots__ = ("takeover_id", "driver", "expire_time", "url", "previous_driver")
    TAKEOVER_ID_FIELD_NUMBER: _ClassVar[int]
    DRIVER_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_DRIVER_FIELD_NUMBER: _ClassVar[int]
    takeover_id: str
    driver: str
    expire_time: _timestamp_pb2.Timestamp
    url: str
    previous_driver: str
    def __init__(self, takeover_id: _Optional[str] = ..., driver: _Optional[str] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., url: _Optional[str] = ..., previous_driver: _Optional[str] = ...) -> None: ...

class TakeoverEnded(_message.Message):
    __slots__ = ("takeover_id", "ending", "resolved_by", "note", "url", "input_events", "driver")
    TAKEOVER_ID_FIELD_NUMBER: _ClassVar[int]
    ENDING_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_BY_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    INPUT_EVENTS_FIELD_NUMBER: _ClassVar[int]
    DRIVER_FIELD_NUMBER: _ClassVar[int]
    takeover_id: str
    ending: TakeoverEnding
    resolved_by: str
    note: str
    url: str
    input_events: int
    driver: str
    def __init__(self, takeover_id: _Optional[str] = ..., ending: _Optional[_Union[TakeoverEnding, str]] = ..., resolved_by: _Optional[str] = ..., note: _Optional[str] = ..., url: _Optional[str] = ..., input_events: _Optional[int] = ..., driver: _Optional[str] = ...) -> None: ...

class TakeoverControl(_message.Message):
    __slots__ = ("driver", "start_time", "ending", "note")
    DRIVER_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    ENDING_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    driver: str
    start_time: _timestamp_pb2.Timestamp
    ending: TakeoverEnding
    note: str
    def __init__(self, driver: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ending: _Optional[_Union[TakeoverEnding, str]] = ..., note: _Optional[str] = ...) -> None: ...
