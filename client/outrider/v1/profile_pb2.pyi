import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ProfileSave(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROFILE_SAVE_UNSPECIFIED: _ClassVar[ProfileSave]
    PROFILE_SAVE_NEVER: _ClassVar[ProfileSave]
    PROFILE_SAVE_ON_SUCCESS: _ClassVar[ProfileSave]
    PROFILE_SAVE_ALWAYS: _ClassVar[ProfileSave]
PROFILE_SAVE_UNSPECIFIED: ProfileSave
PROFILE_SAVE_NEVER: ProfileSave
PROFILE_SAVE_ON_SUCCESS: ProfileSave
PROFILE_SAVE_ALWAYS: ProfileSave

class Profile(_message.Message):
    __slots__ = ("name", "origins", "cookie_count", "version", "create_time", "update_time", "last_used_time", "check", "size_bytes", "writer")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ORIGINS_FIELD_NUMBER: _ClassVar[int]
    COOKIE_COUNT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_TIME_FIELD_NUMBER: _ClassVar[int]
    CHECK_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    WRITER_FIELD_NUMBER: _ClassVar[int]
    name: str
    origins: _containers.RepeatedScalarFieldContainer[str]
    cookie_count: int
    version: int
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    last_used_time: _timestamp_pb2.Timestamp
    check: ProfileCheck
    size_bytes: int
    writer: str
    def __init__(self, name: _Optional[str] = ..., origins: _Optional[_Iterable[str]] = ..., cookie_count: _Optional[int] = ..., version: _Optional[int] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_used_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., check: _Optional[_Union[ProfileCheck, _Mapping]] = ..., size_bytes: _Optional[int] = ..., writer: _Optional[str] = ...) -> None: ...

class ProfileCheck(_message.Message):
    __slots__ = ("url", "text")
    URL_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    url: str
    text: str
    def __init__(self, url: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class ProfileLoaded(_message.Message):
    __slots__ = ("profile", "version", "cookie_count", "origins", "writer")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    COOKIE_COUNT_FIELD_NUMBER: _ClassVar[int]
    ORIGINS_FIELD_NUMBER: _ClassVar[int]
    WRITER_FIELD_NUMBER: _ClassVar[int]
    profile: str
    version: int
    cookie_count: int
    origins: _containers.RepeatedScalarFieldContainer[str]
    writer: bool
    def __init__(self, profile: _Optional[str] = ..., version: _Optional[int] = ..., cookie_count: _Optional[int] = ..., origins: _Optional[_Iterable[str]] = ..., writer: _Optional[bool] = ...) -> None: ...

class ProfileNeedsLogin(_message.Message):
    __slots__ = ("profile", "check_url", "reason", "asking", "credentials")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    CHECK_URL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ASKING_FIELD_NUMBER: _ClassVar[int]
    CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    profile: str
    check_url: str
    reason: str
    asking: bool
    credentials: bool
    def __init__(self, profile: _Optional[str] = ..., check_url: _Optional[str] = ..., reason: _Optional[str] = ..., asking: _Optional[bool] = ..., credentials: _Optional[bool] = ...) -> None: ...

class ProfileSaved(_message.Message):
    __slots__ = ("profile", "saved", "version", "refusal_reason", "message", "cookie_count", "origins")
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    SAVED_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    COOKIE_COUNT_FIELD_NUMBER: _ClassVar[int]
    ORIGINS_FIELD_NUMBER: _ClassVar[int]
    profile: str
    saved: bool
    version: int
    refusal_reason: str
    message: str
    cookie_count: int
    origins: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, profile: _Optional[str] = ..., saved: _Optional[bool] = ..., version: _Optional[int] = ..., refusal_reason: _Optional[str] = ..., message: _Optional[str] = ..., cookie_count: _Optional[int] = ..., origins: _Optional[_Iterable[str]] = ...) -> None: ...
