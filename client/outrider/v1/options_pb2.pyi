from google.protobuf import descriptor_pb2 as _descriptor_pb2
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor
EVENT_NAME_FIELD_NUMBER: _ClassVar[int]
event_name: _descriptor.FieldDescriptor
REST_OPT_IN_FIELD_NUMBER: _ClassVar[int]
rest_opt_in: _descriptor.FieldDescriptor
WIRE_VALUE_FIELD_NUMBER: _ClassVar[int]
wire_value: _descriptor.FieldDescriptor
