import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import field_mask_pb2 as _field_mask_pb2
from outrider.v1 import webhook_pb2 as _webhook_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateWebhookEndpointRequest(_message.Message):
    __slots__ = ("endpoint",)
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    endpoint: _webhook_pb2.WebhookEndpoint
    def __init__(self, endpoint: _Optional[_Union[_webhook_pb2.WebhookEndpoint, _Mapping]] = ...) -> None: ...

class CreateWebhookEndpointResponse(_message.Message):
    __slots__ = ("endpoint", "secret")
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    endpoint: _webhook_pb2.WebhookEndpoint
    secret: str
    def __init__(self, endpoint: _Optional[_Union[_webhook_pb2.WebhookEndpoint, _Mapping]] = ..., secret: _Optional[str] = ...) -> None: ...

class GetWebhookEndpointRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetWebhookEndpointResponse(_message.Message):
    __slots__ = ("endpoint",)
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    endpoint: _webhook_pb2.WebhookEndpoint
    def __init__(self, endpoint: _Optional[_Union[_webhook_pb2.WebhookEndpoint, _Mapping]] = ...) -> None: ...

class ListWebhookEndpointsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListWebhookEndpointsResponse(_message.Message):
    __slots__ = ("endpoints", "next_page_token")
    ENDPOINTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    endpoints: _containers.RepeatedCompositeFieldContainer[_webhook_pb2.WebhookEndpoint]
    next_page_token: str
    def __init__(self, endpoints: _Optional[_Iterable[_Union[_webhook_pb2.WebhookEndpoint, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class UpdateWebhookEndpointRequest(_message.Message):
    __slots__ = ("endpoint", "update_mask")
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    endpoint: _webhook_pb2.WebhookEndpoint
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, endpoint: _Optional[_Union[_webhook_pb2.WebhookEndpoint, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class UpdateWebhookEndpointResponse(_message.Message):
    __slots__ = ("endpoint",)
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    endpoint: _webhook_pb2.WebhookEndpoint
    def __init__(self, endpoint: _Optional[_Union[_webhook_pb2.WebhookEndpoint, _Mapping]] = ...) -> None: ...

class DeleteWebhookEndpointRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class DeleteWebhookEndpointResponse(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RotateWebhookSecretRequest(_message.Message):
    __slots__ = ("name", "overlap")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OVERLAP_FIELD_NUMBER: _ClassVar[int]
    name: str
    overlap: _duration_pb2.Duration
    def __init__(self, name: _Optional[str] = ..., overlap: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class RotateWebhookSecretResponse(_message.Message):
    __slots__ = ("endpoint", "secret")
    ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    endpoint: _webhook_pb2.WebhookEndpoint
    secret: str
    def __init__(self, endpoint: _Optional[_Union[_webhook_pb2.WebhookEndpoint, _Mapping]] = ..., secret: _Optional[str] = ...) -> None: ...

class ListWebhookDeliveriesRequest(_message.Message):
    __slots__ = ("parent", "page_size", "page_token")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    parent: str
    page_size: int
    page_token: str
    def __init__(self, parent: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListWebhookDeliveriesResponse(_message.Message):
    __slots__ = ("deliveries", "next_page_token")
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    deliveries: _containers.RepeatedCompositeFieldContainer[_webhook_pb2.WebhookDelivery]
    next_page_token: str
    def __init__(self, deliveries: _Optional[_Iterable[_Union[_webhook_pb2.WebhookDelivery, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ResendWebhookDeliveryRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ResendWebhookDeliveryResponse(_message.Message):
    __slots__ = ("delivery",)
    DELIVERY_FIELD_NUMBER: _ClassVar[int]
    delivery: _webhook_pb2.WebhookDelivery
    def __init__(self, delivery: _Optional[_Union[_webhook_pb2.WebhookDelivery, _Mapping]] = ...) -> None: ...
