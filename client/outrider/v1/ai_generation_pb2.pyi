from google.protobuf import struct_pb2 as _struct_pb2
from outrider.v1 import options_pb2 as _options_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FinishReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FINISH_REASON_UNSPECIFIED: _ClassVar[FinishReason]
    FINISH_REASON_STOP: _ClassVar[FinishReason]
    FINISH_REASON_LENGTH: _ClassVar[FinishReason]
    FINISH_REASON_CONTENT_FILTER: _ClassVar[FinishReason]
    FINISH_REASON_TOOL_CALLS: _ClassVar[FinishReason]
    FINISH_REASON_ERROR: _ClassVar[FinishReason]
    FINISH_REASON_OTHER: _ClassVar[FinishReason]
FINISH_REASON_UNSPECIFIED: FinishReason
FINISH_REASON_STOP: FinishReason
FINISH_REASON_LENGTH: FinishReason
FINISH_REASON_CONTENT_FILTER: FinishReason
FINISH_REASON_TOOL_CALLS: FinishReason
FINISH_REASON_ERROR: FinishReason
FINISH_REASON_OTHER: FinishReason

class AiGeneration(_message.Message):
    __slots__ = ("finish_reason", "iteration_id", "prompt", "schema", "timestamp", "usage", "messages", "object", "provider_metadata", "temperature", "warnings")
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    SCHEMA_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_METADATA_FIELD_NUMBER: _ClassVar[int]
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    finish_reason: FinishReason
    iteration_id: str
    prompt: str
    schema: _struct_pb2.Struct
    timestamp: float
    usage: GenerationUsage
    messages: _containers.RepeatedCompositeFieldContainer[ModelMessage]
    object: _struct_pb2.Value
    provider_metadata: _struct_pb2.Struct
    temperature: float
    warnings: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    def __init__(self, finish_reason: _Optional[_Union[FinishReason, str]] = ..., iteration_id: _Optional[str] = ..., prompt: _Optional[str] = ..., schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., timestamp: _Optional[float] = ..., usage: _Optional[_Union[GenerationUsage, _Mapping]] = ..., messages: _Optional[_Iterable[_Union[ModelMessage, _Mapping]]] = ..., object: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., provider_metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., temperature: _Optional[float] = ..., warnings: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ...) -> None: ...

class GenerationUsage(_message.Message):
    __slots__ = ("input_tokens", "output_tokens", "total_tokens", "cached_input_tokens", "cache_write_input_tokens")
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHED_INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_WRITE_INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    input_tokens: int
    output_tokens: int
    total_tokens: int
    cached_input_tokens: int
    cache_write_input_tokens: int
    def __init__(self, input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., total_tokens: _Optional[int] = ..., cached_input_tokens: _Optional[int] = ..., cache_write_input_tokens: _Optional[int] = ...) -> None: ...

class ModelMessage(_message.Message):
    __slots__ = ("system", "user", "assistant", "tool")
    SYSTEM_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    ASSISTANT_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    system: SystemMessage
    user: UserMessage
    assistant: AssistantMessage
    tool: ToolMessage
    def __init__(self, system: _Optional[_Union[SystemMessage, _Mapping]] = ..., user: _Optional[_Union[UserMessage, _Mapping]] = ..., assistant: _Optional[_Union[AssistantMessage, _Mapping]] = ..., tool: _Optional[_Union[ToolMessage, _Mapping]] = ...) -> None: ...

class SystemMessage(_message.Message):
    __slots__ = ("content", "provider_options")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    content: str
    provider_options: _struct_pb2.Struct
    def __init__(self, content: _Optional[str] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class UserMessage(_message.Message):
    __slots__ = ("text", "parts", "provider_options")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    text: str
    parts: UserContentParts
    provider_options: _struct_pb2.Struct
    def __init__(self, text: _Optional[str] = ..., parts: _Optional[_Union[UserContentParts, _Mapping]] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class UserContentParts(_message.Message):
    __slots__ = ("parts",)
    PARTS_FIELD_NUMBER: _ClassVar[int]
    parts: _containers.RepeatedCompositeFieldContainer[UserContentPart]
    def __init__(self, parts: _Optional[_Iterable[_Union[UserContentPart, _Mapping]]] = ...) -> None: ...

class UserContentPart(_message.Message):
    __slots__ = ("text", "image", "file")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    text: TextPart
    image: ImagePart
    file: FilePart
    def __init__(self, text: _Optional[_Union[TextPart, _Mapping]] = ..., image: _Optional[_Union[ImagePart, _Mapping]] = ..., file: _Optional[_Union[FilePart, _Mapping]] = ...) -> None: ...

class AssistantMessage(_message.Message):
    __slots__ = ("text", "parts", "provider_options")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    text: str
    parts: AssistantContentParts
    provider_options: _struct_pb2.Struct
    def __init__(self, text: _Optional[str] = ..., parts: _Optional[_Union[AssistantContentParts, _Mapping]] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class AssistantContentParts(_message.Message):
    __slots__ = ("parts",)
    PARTS_FIELD_NUMBER: _ClassVar[int]
    parts: _containers.RepeatedCompositeFieldContainer[AssistantContentPart]
    def __init__(self, parts: _Optional[_Iterable[_Union[AssistantContentPart, _Mapping]]] = ...) -> None: ...

class AssistantContentPart(_message.Message):
    __slots__ = ("text", "file", "reasoning", "tool_call", "tool_result", "tool_approval_request")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    TOOL_APPROVAL_REQUEST_FIELD_NUMBER: _ClassVar[int]
    text: TextPart
    file: FilePart
    reasoning: ReasoningPart
    tool_call: ToolCallPart
    tool_result: ToolResultPart
    tool_approval_request: ToolApprovalRequestPart
    def __init__(self, text: _Optional[_Union[TextPart, _Mapping]] = ..., file: _Optional[_Union[FilePart, _Mapping]] = ..., reasoning: _Optional[_Union[ReasoningPart, _Mapping]] = ..., tool_call: _Optional[_Union[ToolCallPart, _Mapping]] = ..., tool_result: _Optional[_Union[ToolResultPart, _Mapping]] = ..., tool_approval_request: _Optional[_Union[ToolApprovalRequestPart, _Mapping]] = ...) -> None: ...

class ToolMessage(_message.Message):
    __slots__ = ("content", "provider_options")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    content: _containers.RepeatedCompositeFieldContainer[ToolContentPart]
    provider_options: _struct_pb2.Struct
    def __init__(self, content: _Optional[_Iterable[_Union[ToolContentPart, _Mapping]]] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ToolContentPart(_message.Message):
    __slots__ = ("tool_result", "tool_approval_response")
    TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    TOOL_APPROVAL_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    tool_result: ToolResultPart
    tool_approval_response: ToolApprovalResponsePart
    def __init__(self, tool_result: _Optional[_Union[ToolResultPart, _Mapping]] = ..., tool_approval_response: _Optional[_Union[ToolApprovalResponsePart, _Mapping]] = ...) -> None: ...

class TextPart(_message.Message):
    __slots__ = ("text", "provider_options")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    text: str
    provider_options: _struct_pb2.Struct
    def __init__(self, text: _Optional[str] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ImagePart(_message.Message):
    __slots__ = ("image", "media_type", "provider_options")
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    image: BinaryData
    media_type: str
    provider_options: _struct_pb2.Struct
    def __init__(self, image: _Optional[_Union[BinaryData, _Mapping]] = ..., media_type: _Optional[str] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class FilePart(_message.Message):
    __slots__ = ("data", "media_type", "filename", "provider_options")
    DATA_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    data: BinaryData
    media_type: str
    filename: str
    provider_options: _struct_pb2.Struct
    def __init__(self, data: _Optional[_Union[BinaryData, _Mapping]] = ..., media_type: _Optional[str] = ..., filename: _Optional[str] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ReasoningPart(_message.Message):
    __slots__ = ("text", "provider_options")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    text: str
    provider_options: _struct_pb2.Struct
    def __init__(self, text: _Optional[str] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ToolCallPart(_message.Message):
    __slots__ = ("input", "tool_call_id", "tool_name", "provider_executed", "provider_options")
    INPUT_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_EXECUTED_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    input: _struct_pb2.Struct
    tool_call_id: str
    tool_name: str
    provider_executed: bool
    provider_options: _struct_pb2.Struct
    def __init__(self, input: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., tool_call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., provider_executed: _Optional[bool] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ToolResultPart(_message.Message):
    __slots__ = ("output", "tool_call_id", "tool_name", "provider_options")
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    output: ToolResultOutput
    tool_call_id: str
    tool_name: str
    provider_options: _struct_pb2.Struct
    def __init__(self, output: _Optional[_Union[ToolResultOutput, _Mapping]] = ..., tool_call_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ToolApprovalRequestPart(_message.Message):
    __slots__ = ("approval_id", "tool_call_id")
    APPROVAL_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    approval_id: str
    tool_call_id: str
    def __init__(self, approval_id: _Optional[str] = ..., tool_call_id: _Optional[str] = ...) -> None: ...

class ToolApprovalResponsePart(_message.Message):
    __slots__ = ("approval_id", "approved", "provider_executed", "reason")
    APPROVAL_ID_FIELD_NUMBER: _ClassVar[int]
    APPROVED_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_EXECUTED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    approval_id: str
    approved: bool
    provider_executed: bool
    reason: str
    def __init__(self, approval_id: _Optional[str] = ..., approved: _Optional[bool] = ..., provider_executed: _Optional[bool] = ..., reason: _Optional[str] = ...) -> None: ...

class ToolResultOutput(_message.Message):
    __slots__ = ("text", "json", "execution_denied", "error_text", "error_json", "content")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    JSON_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_DENIED_FIELD_NUMBER: _ClassVar[int]
    ERROR_TEXT_FIELD_NUMBER: _ClassVar[int]
    ERROR_JSON_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    text: ToolOutputText
    json: ToolOutputJson
    execution_denied: ToolOutputExecutionDenied
    error_text: ToolOutputText
    error_json: ToolOutputJson
    content: ToolOutputContent
    def __init__(self, text: _Optional[_Union[ToolOutputText, _Mapping]] = ..., json: _Optional[_Union[ToolOutputJson, _Mapping]] = ..., execution_denied: _Optional[_Union[ToolOutputExecutionDenied, _Mapping]] = ..., error_text: _Optional[_Union[ToolOutputText, _Mapping]] = ..., error_json: _Optional[_Union[ToolOutputJson, _Mapping]] = ..., content: _Optional[_Union[ToolOutputContent, _Mapping]] = ...) -> None: ...

class ToolOutputText(_message.Message):
    __slots__ = ("value", "provider_options")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    value: str
    provider_options: _struct_pb2.Struct
    def __init__(self, value: _Optional[str] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ToolOutputJson(_message.Message):
    __slots__ = ("value", "provider_options")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    value: _struct_pb2.Value
    provider_options: _struct_pb2.Struct
    def __init__(self, value: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ToolOutputExecutionDenied(_message.Message):
    __slots__ = ("provider_options", "reason")
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    provider_options: _struct_pb2.Struct
    reason: str
    def __init__(self, provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., reason: _Optional[str] = ...) -> None: ...

class ToolOutputContent(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: _containers.RepeatedCompositeFieldContainer[ToolOutputContentValue]
    def __init__(self, value: _Optional[_Iterable[_Union[ToolOutputContentValue, _Mapping]]] = ...) -> None: ...

class ToolOutputContentValue(_message.Message):
    __slots__ = ("text", "media", "file_data", "file_url", "file_id", "image_data", "image_url", "image_file_id", "custom")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    MEDIA_FIELD_NUMBER: _ClassVar[int]
    FILE_DATA_FIELD_NUMBER: _ClassVar[int]
    FILE_URL_FIELD_NUMBER: _ClassVar[int]
    FILE_ID_FIELD_NUMBER: _ClassVar[int]
    IMAGE_DATA_FIELD_NUMBER: _ClassVar[int]
    IMAGE_URL_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FILE_ID_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_FIELD_NUMBER: _ClassVar[int]
    text: TextPart
    media: MediaContent
    file_data: FileDataContent
    file_url: UrlContent
    file_id: FileIdContent
    image_data: ImageDataContent
    image_url: UrlContent
    image_file_id: FileIdContent
    custom: CustomContent
    def __init__(self, text: _Optional[_Union[TextPart, _Mapping]] = ..., media: _Optional[_Union[MediaContent, _Mapping]] = ..., file_data: _Optional[_Union[FileDataContent, _Mapping]] = ..., file_url: _Optional[_Union[UrlContent, _Mapping]] = ..., file_id: _Optional[_Union[FileIdContent, _Mapping]] = ..., image_data: _Optional[_Union[ImageDataContent, _Mapping]] = ..., image_url: _Optional[_Union[UrlContent, _Mapping]] = ..., image_file_id: _Optional[_Union[FileIdContent, _Mapping]] = ..., custom: _Optional[_Union[CustomContent, _Mapping]] = ...) -> None: ...

class MediaContent(_message.Message):
    __slots__ = ("data", "media_type")
    DATA_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    data: str
    media_type: str
    def __init__(self, data: _Optional[str] = ..., media_type: _Optional[str] = ...) -> None: ...

class FileDataContent(_message.Message):
    __slots__ = ("data", "media_type", "filename", "provider_options")
    DATA_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    data: str
    media_type: str
    filename: str
    provider_options: _struct_pb2.Struct
    def __init__(self, data: _Optional[str] = ..., media_type: _Optional[str] = ..., filename: _Optional[str] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class UrlContent(_message.Message):
    __slots__ = ("url", "provider_options")
    URL_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    url: str
    provider_options: _struct_pb2.Struct
    def __init__(self, url: _Optional[str] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class FileIdContent(_message.Message):
    __slots__ = ("file_id", "provider_options")
    FILE_ID_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    file_id: FileId
    provider_options: _struct_pb2.Struct
    def __init__(self, file_id: _Optional[_Union[FileId, _Mapping]] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ImageDataContent(_message.Message):
    __slots__ = ("data", "media_type", "provider_options")
    DATA_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    data: str
    media_type: str
    provider_options: _struct_pb2.Struct
    def __init__(self, data: _Optional[str] = ..., media_type: _Optional[str] = ..., provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class CustomContent(_message.Message):
    __slots__ = ("provider_options",)
    PROVIDER_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    provider_options: _struct_pb2.Struct
    def __init__(self, provider_options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class FileId(_message.Message):
    __slots__ = ("id", "per_provider")
    ID_FIELD_NUMBER: _ClassVar[int]
    PER_PROVIDER_FIELD_NUMBER: _ClassVar[int]
    id: str
    per_provider: ProviderFileIds
    def __init__(self, id: _Optional[str] = ..., per_provider: _Optional[_Union[ProviderFileIds, _Mapping]] = ...) -> None: ...

class ProviderFileIds(_message.Message):
    __slots__ = ("ids",)
    class IdsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.ScalarMap[str, str]
    def __init__(self, ids: _Optional[_Mapping[str, str]] = ...) -> None: ...

class BinaryData(_message.Message):
    __slots__ = ("encoded", "typed_array", "byte_length", "global_buffer")
    ENCODED_FIELD_NUMBER: _ClassVar[int]
    TYPED_ARRAY_FIELD_NUMBER: _ClassVar[int]
    BYTE_LENGTH_FIELD_NUMBER: _ClassVar[int]
    GLOBAL_BUFFER_FIELD_NUMBER: _ClassVar[int]
    encoded: str
    typed_array: TypedArrayView
    byte_length: ByteLength
    global_buffer: TypedArrayView
    def __init__(self, encoded: _Optional[str] = ..., typed_array: _Optional[_Union[TypedArrayView, _Mapping]] = ..., byte_length: _Optional[_Union[ByteLength, _Mapping]] = ..., global_buffer: _Optional[_Union[TypedArrayView, _Mapping]] = ...) -> None: ...

class TypedArrayView(_message.Message):
    __slots__ = ("buffer", "byte_length", "byte_offset", "bytes_per_element", "length")
    BUFFER_FIELD_NUMBER: _ClassVar[int]
    BYTE_LENGTH_FIELD_NUMBER: _ClassVar[int]
    BYTE_OFFSET_FIELD_NUMBER: _ClassVar[int]
    BYTES_PER_ELEMENT_FIELD_NUMBER: _ClassVar[int]
    LENGTH_FIELD_NUMBER: _ClassVar[int]
    buffer: ByteLength
    byte_length: int
    byte_offset: int
    bytes_per_element: int
    length: int
    def __init__(self, buffer: _Optional[_Union[ByteLength, _Mapping]] = ..., byte_length: _Optional[int] = ..., byte_offset: _Optional[int] = ..., bytes_per_element: _Optional[int] = ..., length: _Optional[int] = ...) -> None: ...

class ByteLength(_message.Message):
    __slots__ = ("byte_length",)
    BYTE_LENGTH_FIELD_NUMBER: _ClassVar[int]
    byte_length: int
    def __init__(self, byte_length: _Optional[int] = ...) -> None: ...
