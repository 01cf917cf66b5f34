import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CredentialPart(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CREDENTIAL_PART_UNSPECIFIED: _ClassVar[CredentialPart]
    CREDENTIAL_PART_USERNAME: _ClassVar[CredentialPart]
    CREDENTIAL_PART_PASSWORD: _ClassVar[CredentialPart]
    CREDENTIAL_PART_TOTP: _ClassVar[CredentialPart]
CREDENTIAL_PART_UNSPECIFIED: CredentialPart
CREDENTIAL_PART_USERNAME: CredentialPart
CREDENTIAL_PART_PASSWORD: CredentialPart
CREDENTIAL_PART_TOTP: CredentialPart

class Credential(_message.Message):
    __slots__ = ("name", "origins", "has_username", "has_password", "has_totp", "create_time", "update_time", "last_used_time")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ORIGINS_FIELD_NUMBER: _ClassVar[int]
    HAS_USERNAME_FIELD_NUMBER: _ClassVar[int]
    HAS_PASSWORD_FIELD_NUMBER: _ClassVar[int]
    HAS_TOTP_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_TIME_FIELD_NUMBER: _ClassVar[int]
    name: str
    origins: _containers.RepeatedScalarFieldContainer[str]
    has_username: bool
    has_password: bool
    has_totp: bool
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    last_used_time: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[str] = ..., origins: _Optional[_Iterable[str]] = ..., has_username: _Optional[bool] = ..., has_password: _Optional[bool] = ..., has_totp: _Optional[bool] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_used_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CredentialSecret(_message.Message):
    __slots__ = ("username", "password", "totp_seed")
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    TOTP_SEED_FIELD_NUMBER: _ClassVar[int]
    username: str
    password: str
    totp_seed: str
    def __init__(self, username: _Optional[str] = ..., password: _Optional[str] = ..., totp_seed: _Optional[str] = ...) -> None: ...

class CredentialUse(_message.Message):
    __slots__ = ("credential", "run", "origin", "part", "field_kind", "filled", "refusal_reason", "time", "iteration_id", "message")
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    PART_FIELD_NUMBER: _ClassVar[int]
    FIELD_KIND_FIELD_NUMBER: _ClassVar[int]
    FILLED_FIELD_NUMBER: _ClassVar[int]
    REFUSAL_REASON_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    credential: str
    run: str
    origin: str
    part: CredentialPart
    field_kind: str
    filled: bool
    refusal_reason: str
    time: _timestamp_pb2.Timestamp
    iteration_id: str
    message: str
    def __init__(self, credential: _Optional[str] = ..., run: _Optional[str] = ..., origin: _Optional[str] = ..., part: _Optional[_Union[CredentialPart, str]] = ..., field_kind: _Optional[str] = ..., filled: _Optional[bool] = ..., refusal_reason: _Optional[str] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., iteration_id: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...
