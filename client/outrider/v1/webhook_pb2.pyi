import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WebhookDeliveryState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WEBHOOK_DELIVERY_STATE_UNSPECIFIED: _ClassVar[WebhookDeliveryState]
    WEBHOOK_DELIVERY_STATE_PENDING: _ClassVar[WebhookDeliveryState]
    WEBHOOK_DELIVERY_STATE_DELIVERED: _ClassVar[WebhookDeliveryState]
    WEBHOOK_DELIVERY_STATE_FAILED: _ClassVar[WebhookDeliveryState]
WEBHOOK_DELIVERY_STATE_UNSPECIFIED: WebhookDeliveryState
WEBHOOK_DELIVERY_STATE_PENDING: WebhookDeliveryState
WEBHOOK_DELIVERY_STATE_DELIVERED: WebhookDeliveryState
WEBHOOK_DELIVERY_STATE_FAILED: WebhookDeliveryState

class WebhookEndpoint(_message.Message):
    __slots__ = ("name", "url", "event_types", "description", "enabled", "carry_answer_links", "disabled_reason", "create_time", "update_time", "failing_since", "previous_secret_expire_time")
    NAME_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPES_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    CARRY_ANSWER_LINKS_FIELD_NUMBER: _ClassVar[int]
    DISABLED_REASON_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    FAILING_SINCE_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SECRET_EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    name: str
    url: str
    event_types: _containers.RepeatedScalarFieldContainer[str]
    description: str
    enabled: bool
    carry_answer_links: bool
    disabled_reason: str
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    failing_since: _timestamp_pb2.Timestamp
    previous_secret_expire_time: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[str] = ..., url: _Optional[str] = ..., event_types: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ..., enabled: _Optional[bool] = ..., carry_answer_links: _Optional[bool] = ..., disabled_reason: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., failing_since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., previous_secret_expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class WebhookDelivery(_message.Message):
    __slots__ = ("name", "message_id", "event_type", "run", "state", "attempts", "response_code", "error", "latency", "create_time", "last_attempt_time", "next_attempt_time")
    NAME_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    LATENCY_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_ATTEMPT_TIME_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_TIME_FIELD_NUMBER: _ClassVar[int]
    name: str
    message_id: str
    event_type: str
    run: str
    state: WebhookDeliveryState
    attempts: int
    response_code: int
    error: str
    latency: _duration_pb2.Duration
    create_time: _timestamp_pb2.Timestamp
    last_attempt_time: _timestamp_pb2.Timestamp
    next_attempt_time: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[str] = ..., message_id: _Optional[str] = ..., event_type: _Optional[str] = ..., run: _Optional[str] = ..., state: _Optional[_Union[WebhookDeliveryState, str]] = ..., attempts: _Optional[int] = ..., response_code: _Optional[int] = ..., error: _Optional[str] = ..., latency: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_attempt_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., next_attempt_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
