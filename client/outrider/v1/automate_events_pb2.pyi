from google.protobuf import struct_pb2 as _struct_pb2
from outrider.v1 import ai_generation_pb2 as _ai_generation_pb2
from outrider.v1 import options_pb2 as _options_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ScreenshotFormat(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SCREENSHOT_FORMAT_UNSPECIFIED: _ClassVar[ScreenshotFormat]
    SCREENSHOT_FORMAT_JPEG: _ClassVar[ScreenshotFormat]
    SCREENSHOT_FORMAT_PNG: _ClassVar[ScreenshotFormat]

class ImageMediaType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    IMAGE_MEDIA_TYPE_UNSPECIFIED: _ClassVar[ImageMediaType]
    IMAGE_MEDIA_TYPE_JPEG: _ClassVar[ImageMediaType]
    IMAGE_MEDIA_TYPE_PNG: _ClassVar[ImageMediaType]

class AutomateErrorCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AUTOMATE_ERROR_CODE_UNSPECIFIED: _ClassVar[AutomateErrorCode]
    AUTOMATE_ERROR_CODE_TASK_ABORTED: _ClassVar[AutomateErrorCode]
    AUTOMATE_ERROR_CODE_MAX_ITERATIONS: _ClassVar[AutomateErrorCode]
    AUTOMATE_ERROR_CODE_MAX_ERRORS: _ClassVar[AutomateErrorCode]
    AUTOMATE_ERROR_CODE_TASK_FAILED: _ClassVar[AutomateErrorCode]

class FormFieldType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FORM_FIELD_TYPE_UNSPECIFIED: _ClassVar[FormFieldType]
    FORM_FIELD_TYPE_TEXT: _ClassVar[FormFieldType]
    FORM_FIELD_TYPE_EMAIL: _ClassVar[FormFieldType]
    FORM_FIELD_TYPE_PHONE: _ClassVar[FormFieldType]
    FORM_FIELD_TYPE_DATE: _ClassVar[FormFieldType]
    FORM_FIELD_TYPE_NUMBER: _ClassVar[FormFieldType]
    FORM_FIELD_TYPE_SELECT: _ClassVar[FormFieldType]
    FORM_FIELD_TYPE_CHECKBOX: _ClassVar[FormFieldType]
    FORM_FIELD_TYPE_RADIO: _ClassVar[FormFieldType]
    FORM_FIELD_TYPE_TEXTAREA: _ClassVar[FormFieldType]
    FORM_FIELD_TYPE_PASSWORD: _ClassVar[FormFieldType]
    FORM_FIELD_TYPE_OTHER: _ClassVar[FormFieldType]

class KeySource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    KEY_SOURCE_UNSPECIFIED: _ClassVar[KeySource]
    KEY_SOURCE_GLOBAL: _ClassVar[KeySource]
    KEY_SOURCE_ENV: _ClassVar[KeySource]
    KEY_SOURCE_NOT_SET: _ClassVar[KeySource]

class CompletionQuality(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COMPLETION_QUALITY_UNSPECIFIED: _ClassVar[CompletionQuality]
    COMPLETION_QUALITY_FAILED: _ClassVar[CompletionQuality]
    COMPLETION_QUALITY_PARTIAL: _ClassVar[CompletionQuality]
    COMPLETION_QUALITY_COMPLETE: _ClassVar[CompletionQuality]
    COMPLETION_QUALITY_EXCELLENT: _ClassVar[CompletionQuality]
SCREENSHOT_FORMAT_UNSPECIFIED: ScreenshotFormat
SCREENSHOT_FORMAT_JPEG: ScreenshotFormat
SCREENSHOT_FORMAT_PNG: ScreenshotFormat
IMAGE_MEDIA_TYPE_UNSPECIFIED: ImageMediaType
IMAGE_MEDIA_TYPE_JPEG: ImageMediaType
IMAGE_MEDIA_TYPE_PNG: ImageMediaType
AUTOMATE_ERROR_CODE_UNSPECIFIED: AutomateErrorCode
AUTOMATE_ERROR_CODE_TASK_ABORTED: AutomateErrorCode
AUTOMATE_ERROR_CODE_MAX_ITERATIONS: AutomateErrorCode
AUTOMATE_ERROR_CODE_MAX_ERRORS: AutomateErrorCode
AUTOMATE_ERROR_CODE_TASK_FAILED: AutomateErrorCode
FORM_FIELD_TYPE_UNSPECIFIED: FormFieldType
FORM_FIELD_TYPE_TEXT: FormFieldType
FORM_FIELD_TYPE_EMAIL: FormFieldType
FORM_FIELD_TYPE_PHONE: FormFieldType
FORM_FIELD_TYPE_DATE: FormFieldType
FORM_FIELD_TYPE_NUMBER: FormFieldType
FORM_FIELD_TYPE_SELECT: FormFieldType
FORM_FIELD_TYPE_CHECKBOX: FormFieldType
FORM_FIELD_TYPE_RADIO: FormFieldType
FORM_FIELD_TYPE_TEXTAREA: FormFieldType
FORM_FIELD_TYPE_PASSWORD: FormFieldType
FORM_FIELD_TYPE_OTHER: FormFieldType
KEY_SOURCE_UNSPECIFIED: KeySource
KEY_SOURCE_GLOBAL: KeySource
KEY_SOURCE_ENV: KeySource
KEY_SOURCE_NOT_SET: KeySource
COMPLETION_QUALITY_UNSPECIFIED: CompletionQuality
COMPLETION_QUALITY_FAILED: CompletionQuality
COMPLETION_QUALITY_PARTIAL: CompletionQuality
COMPLETION_QUALITY_COMPLETE: CompletionQuality
COMPLETION_QUALITY_EXCELLENT: CompletionQuality

class AutomateEvent(_message.Message):
    __slots__ = ("agent_action", "agent_extracted", "agent_processing", "agent_reasoned", "agent_status", "agent_step", "agent_waiting", "ai_generation", "ai_generation_error", "browser_action_completed", "browser_action_started", "browser_navigated", "browser_reconnected", "browser_screenshot_captured", "browser_screenshot_captured_image", "cdp_endpoint_connected", "cdp_endpoint_cycle", "complete", "done", "error", "interactive_form_data_error", "interactive_form_data_request", "system_debug_compression", "system_debug_message", "task_aborted", "task_completed", "task_metrics", "task_metrics_incremental", "task_setup", "task_started", "task_trace_context", "task_validated", "task_validation_error")
    AGENT_ACTION_FIELD_NUMBER: _ClassVar[int]
    AGENT_EXTRACTED_FIELD_NUMBER: _ClassVar[int]
    AGENT_PROCESSING_FIELD_NUMBER: _ClassVar[int]
    AGENT_REASONED_FIELD_NUMBER: _ClassVar[int]
    AGENT_STATUS_FIELD_NUMBER: _ClassVar[int]
    AGENT_STEP_FIELD_NUMBER: _ClassVar[int]
    AGENT_WAITING_FIELD_NUMBER: _ClassVar[int]
    AI_GENERATION_FIELD_NUMBER: _ClassVar[int]
    AI_GENERATION_ERROR_FIELD_NUMBER: _ClassVar[int]
    BROWSER_ACTION_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    BROWSER_ACTION_STARTED_FIELD_NUMBER: _ClassVar[int]
    BROWSER_NAVIGATED_FIELD_NUMBER: _ClassVar[int]
    BROWSER_RECONNECTED_FIELD_NUMBER: _ClassVar[int]
    BROWSER_SCREENSHOT_CAPTURED_FIELD_NUMBER: _ClassVar[int]
    BROWSER_SCREENSHOT_CAPTURED_IMAGE_FIELD_NUMBER: _ClassVar[int]
    CDP_ENDPOINT_CONNECTED_FIELD_NUMBER: _ClassVar[int]
    CDP_ENDPOINT_CYCLE_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    INTERACTIVE_FORM_DATA_ERROR_FIELD_NUMBER: _ClassVar[int]
    INTERACTIVE_FORM_DATA_REQUEST_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_DEBUG_COMPRESSION_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_DEBUG_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TASK_ABORTED_FIELD_NUMBER: _ClassVar[int]
    TASK_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    TASK_METRICS_FIELD_NUMBER: _ClassVar[int]
    TASK_METRICS_INCREMENTAL_FIELD_NUMBER: _ClassVar[int]
    TASK_SETUP_FIELD_NUMBER: _ClassVar[int]
    TASK_STARTED_FIELD_NUMBER: _ClassVar[int]
    TASK_TRACE_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    TASK_VALIDATED_FIELD_NUMBER: _ClassVar[int]
    TASK_VALIDATION_ERROR_FIELD_NUMBER: _ClassVar[int]
    agent_action: AgentAction
    agent_extracted: AgentExtracted
    agent_processing: AgentProcessing
    agent_reasoned: AgentReasoned
    agent_status: AgentStatus
    agent_step: AgentStep
    agent_waiting: AgentWaiting
    ai_generation: _ai_generation_pb2.AiGeneration
    ai_generation_error: AiGenerationError
    browser_action_completed: BrowserActionCompleted
    browser_action_started: BrowserActionStarted
    browser_navigated: BrowserNavigated
    browser_reconnected: BrowserReconnected
    browser_screenshot_captured: BrowserScreenshotCaptured
    browser_screenshot_captured_image: BrowserScreenshotCapturedImage
    cdp_endpoint_connected: CdpEndpointConnected
    cdp_endpoint_cycle: CdpEndpointCycle
    complete: AutomateComplete
    done: AutomateDone
    error: AutomateError
    interactive_form_data_error: InteractiveFormDataError
    interactive_form_data_request: InteractiveFormDataRequest
    system_debug_compression: SystemDebugCompression
    system_debug_message: SystemDebugMessage
    task_aborted: TaskAborted
    task_completed: TaskCompleted
    task_metrics: TaskMetrics
    task_metrics_incremental: TaskMetricsIncremental
    task_setup: TaskSetup
    task_started: TaskStarted
    task_trace_context: TaskTraceContext
    task_validated: TaskValidated
    task_validation_error: TaskValidationError
    def __init__(self, agent_action: _Optional[_Union[AgentAction, _Mapping]] = ..., agent_extracted: _Optional[_Union[AgentExtracted, _Mapping]] = ..., agent_processing: _Optional[_Union[AgentProcessing, _Mapping]] = ..., agent_reasoned: _Optional[_Union[AgentReasoned, _Mapping]] = ..., agent_status: _Optional[_Union[AgentStatus, _Mapping]] = ..., agent_step: _Optional[_Union[AgentStep, _Mapping]] = ..., agent_waiting: _Optional[_Union[AgentWaiting, _Mapping]] = ..., ai_generation: _Optional[_Union[_ai_generation_pb2.AiGeneration, _Mapping]] = ..., ai_generation_error: _Optional[_Union[AiGenerationError, _Mapping]] = ..., browser_action_completed: _Optional[_Union[BrowserActionCompleted, _Mapping]] = ..., browser_action_started: _Optional[_Union[BrowserActionStarted, _Mapping]] = ..., browser_navigated: _Optional[_Union[BrowserNavigated, _Mapping]] = ..., browser_reconnected: _Optional[_Union[BrowserReconnected, _Mapping]] = ..., browser_screenshot_captured: _Optional[_Union[BrowserScreenshotCaptured, _Mapping]] = ..., browser_screenshot_captured_image: _Optional[_Union[BrowserScreenshotCapturedImage, _Mapping]] = ..., cdp_endpoint_connected: _Optional[_Union[CdpEndpointConnected, _Mapping]] = ..., cdp_endpoint_cycle: _Optional[_Union[CdpEndpointCycle, _Mapping]] = ..., complete: _Optional[_Union[AutomateComplete, _Mapping]] = ..., done: _Optional[_Union[AutomateDone, _Mapping]] = ..., error: _Optional[_Union[AutomateError, _Mapping]] = ..., interactive_form_data_error: _Optional[_Union[InteractiveFormDataError, _Mapping]] = ..., interactive_form_data_request: _Optional[_Union[InteractiveFormDataRequest, _Mapping]] = ..., system_debug_compression: _Optional[_Union[SystemDebugCompression, _Mapping]] = ..., system_debug_message: _Optional[_Union[SystemDebugMessage, _Mapping]] = ..., task_aborted: _Optional[_Union[TaskAborted, _Mapping]] = ..., task_completed: _Optional[_Union[TaskCompleted, _Mapping]] = ..., task_metrics: _Optional[_Union[TaskMetrics, _Mapping]] = ..., task_metrics_incremental: _Optional[_Union[TaskMetricsIncremental, _Mapping]] = ..., task_setup: _Optional[_Union[TaskSetup, _Mapping]] = ..., task_started: _Optional[_Union[TaskStarted, _Mapping]] = ..., task_trace_context: _Optional[_Union[TaskTraceContext, _Mapping]] = ..., task_validated: _Optional[_Union[TaskValidated, _Mapping]] = ..., task_validation_error: _Optional[_Union[TaskValidationError, _Mapping]] = ...) -> None: ...

class AgentAction(_message.Message):
    __slots__ = ("action", "iteration_id", "timestamp", "ref", "value", "target")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    action: str
    iteration_id: str
    timestamp: float
    ref: str
    value: str
    target: ActionTarget
    def __init__(self, action: _Optional[str] = ..., iteration_id: _Optional[str] = ..., timestamp: _Optional[float] = ..., ref: _Optional[str] = ..., value: _Optional[str] = ..., target: _Optional[_Union[ActionTarget, _Mapping]] = ...) -> None: ...

class ActionTarget(_message.Message):
    __slots__ = ("x", "y", "width", "height", "label")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    WIDTH_FIELD_NUMBER: _ClassVar[int]
    HEIGHT_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    x: float
    y: float
    width: float
    height: float
    label: str
    def __init__(self, x: _Optional[float] = ..., y: _Optional[float] = ..., width: _Optional[float] = ..., height: _Optional[float] = ..., label: _Optional[str] = ...) -> None: ...

class AgentExtracted(_message.Message):
    __slots__ = ("extracted_data", "iteration_id", "timestamp")
    EXTRACTED_DATA_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    extracted_data: str
    iteration_id: str
    timestamp: float
    def __init__(self, extracted_data: _Optional[str] = ..., iteration_id: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class AgentProcessing(_message.Message):
    __slots__ = ("has_screenshot", "iteration_id", "operation", "timestamp")
    HAS_SCREENSHOT_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    OPERATION_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    has_screenshot: bool
    iteration_id: str
    operation: str
    timestamp: float
    def __init__(self, has_screenshot: _Optional[bool] = ..., iteration_id: _Optional[str] = ..., operation: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class AgentReasoned(_message.Message):
    __slots__ = ("iteration_id", "reasoning", "timestamp")
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    iteration_id: str
    reasoning: str
    timestamp: float
    def __init__(self, iteration_id: _Optional[str] = ..., reasoning: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class AgentStatus(_message.Message):
    __slots__ = ("iteration_id", "message", "timestamp")
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    iteration_id: str
    message: str
    timestamp: float
    def __init__(self, iteration_id: _Optional[str] = ..., message: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class AgentStep(_message.Message):
    __slots__ = ("current_iteration", "iteration_id", "timestamp")
    CURRENT_ITERATION_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    current_iteration: int
    iteration_id: str
    timestamp: float
    def __init__(self, current_iteration: _Optional[int] = ..., iteration_id: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class AgentWaiting(_message.Message):
    __slots__ = ("iteration_id", "seconds", "timestamp")
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    iteration_id: str
    seconds: float
    timestamp: float
    def __init__(self, iteration_id: _Optional[str] = ..., seconds: _Optional[float] = ..., timestamp: _Optional[float] = ...) -> None: ...

class AiGenerationError(_message.Message):
    __slots__ = ("error", "iteration_id", "prompt", "schema", "timestamp", "messages")
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    SCHEMA_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    error: str
    iteration_id: str
    prompt: str
    schema: _struct_pb2.Struct
    timestamp: float
    messages: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    def __init__(self, error: _Optional[str] = ..., iteration_id: _Optional[str] = ..., prompt: _Optional[str] = ..., schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., timestamp: _Optional[float] = ..., messages: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ...) -> None: ...

class BrowserActionCompleted(_message.Message):
    __slots__ = ("iteration_id", "success", "timestamp", "error")
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    iteration_id: str
    success: bool
    timestamp: float
    error: str
    def __init__(self, iteration_id: _Optional[str] = ..., success: _Optional[bool] = ..., timestamp: _Optional[float] = ..., error: _Optional[str] = ...) -> None: ...

class BrowserActionStarted(_message.Message):
    __slots__ = ("action", "iteration_id", "timestamp", "ref", "value")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    action: str
    iteration_id: str
    timestamp: float
    ref: str
    value: str
    def __init__(self, action: _Optional[str] = ..., iteration_id: _Optional[str] = ..., timestamp: _Optional[float] = ..., ref: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class BrowserNavigated(_message.Message):
    __slots__ = ("iteration_id", "timestamp", "title", "url")
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    iteration_id: str
    timestamp: float
    title: str
    url: str
    def __init__(self, iteration_id: _Optional[str] = ..., timestamp: _Optional[float] = ..., title: _Optional[str] = ..., url: _Optional[str] = ...) -> None: ...

class BrowserReconnected(_message.Message):
    __slots__ = ("endpoint_index", "iteration_id", "starting_url", "timestamp", "total")
    ENDPOINT_INDEX_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    STARTING_URL_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    endpoint_index: int
    iteration_id: str
    starting_url: str
    timestamp: float
    total: int
    def __init__(self, endpoint_index: _Optional[int] = ..., iteration_id: _Optional[str] = ..., starting_url: _Optional[str] = ..., timestamp: _Optional[float] = ..., total: _Optional[int] = ...) -> None: ...

class BrowserScreenshotCaptured(_message.Message):
    __slots__ = ("format", "iteration_id", "size", "timestamp")
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    format: ScreenshotFormat
    iteration_id: str
    size: int
    timestamp: float
    def __init__(self, format: _Optional[_Union[ScreenshotFormat, str]] = ..., iteration_id: _Optional[str] = ..., size: _Optional[int] = ..., timestamp: _Optional[float] = ...) -> None: ...

class BrowserScreenshotCapturedImage(_message.Message):
    __slots__ = ("image", "iteration_id", "media_type", "timestamp")
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    image: str
    iteration_id: str
    media_type: ImageMediaType
    timestamp: float
    def __init__(self, image: _Optional[str] = ..., iteration_id: _Optional[str] = ..., media_type: _Optional[_Union[ImageMediaType, str]] = ..., timestamp: _Optional[float] = ...) -> None: ...

class CdpEndpointConnected(_message.Message):
    __slots__ = ("endpoint_index", "iteration_id", "timestamp", "total")
    ENDPOINT_INDEX_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    endpoint_index: int
    iteration_id: str
    timestamp: float
    total: int
    def __init__(self, endpoint_index: _Optional[int] = ..., iteration_id: _Optional[str] = ..., timestamp: _Optional[float] = ..., total: _Optional[int] = ...) -> None: ...

class CdpEndpointCycle(_message.Message):
    __slots__ = ("attempt", "error", "iteration_id", "timestamp", "total")
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    error: str
    iteration_id: str
    timestamp: float
    total: int
    def __init__(self, attempt: _Optional[int] = ..., error: _Optional[str] = ..., iteration_id: _Optional[str] = ..., timestamp: _Optional[float] = ..., total: _Optional[int] = ...) -> None: ...

class AutomateComplete(_message.Message):
    __slots__ = ("final_answer", "stats", "success", "error")
    FINAL_ANSWER_FIELD_NUMBER: _ClassVar[int]
    STATS_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    final_answer: str
    stats: AutomateStats
    success: bool
    error: AutomateFailure
    def __init__(self, final_answer: _Optional[str] = ..., stats: _Optional[_Union[AutomateStats, _Mapping]] = ..., success: _Optional[bool] = ..., error: _Optional[_Union[AutomateFailure, _Mapping]] = ...) -> None: ...

class AutomateStats(_message.Message):
    __slots__ = ("actions", "duration_ms", "end_time", "iterations", "start_time")
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    actions: int
    duration_ms: float
    end_time: float
    iterations: int
    start_time: float
    def __init__(self, actions: _Optional[int] = ..., duration_ms: _Optional[float] = ..., end_time: _Optional[float] = ..., iterations: _Optional[int] = ..., start_time: _Optional[float] = ...) -> None: ...

class AutomateFailure(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: AutomateErrorCode
    message: str
    def __init__(self, code: _Optional[_Union[AutomateErrorCode, str]] = ..., message: _Optional[str] = ...) -> None: ...

class AutomateDone(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AutomateError(_message.Message):
    __slots__ = ("error", "success")
    ERROR_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    error: AutomateErrorDetail
    success: bool
    def __init__(self, error: _Optional[_Union[AutomateErrorDetail, _Mapping]] = ..., success: _Optional[bool] = ...) -> None: ...

class AutomateErrorDetail(_message.Message):
    __slots__ = ("code", "message", "timestamp")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    timestamp: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., timestamp: _Optional[str] = ...) -> None: ...

class InteractiveFormDataError(_message.Message):
    __slots__ = ("field_errors", "fields", "form_description", "iteration_id", "page_title", "page_url", "request_id", "timestamp", "answer_url")
    class FieldErrorsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    FIELD_ERRORS_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    FORM_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_TITLE_FIELD_NUMBER: _ClassVar[int]
    PAGE_URL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    ANSWER_URL_FIELD_NUMBER: _ClassVar[int]
    field_errors: _containers.ScalarMap[str, str]
    fields: _containers.RepeatedCompositeFieldContainer[FormField]
    form_description: str
    iteration_id: str
    page_title: str
    page_url: str
    request_id: str
    timestamp: float
    answer_url: str
    def __init__(self, field_errors: _Optional[_Mapping[str, str]] = ..., fields: _Optional[_Iterable[_Union[FormField, _Mapping]]] = ..., form_description: _Optional[str] = ..., iteration_id: _Optional[str] = ..., page_title: _Optional[str] = ..., page_url: _Optional[str] = ..., request_id: _Optional[str] = ..., timestamp: _Optional[float] = ..., answer_url: _Optional[str] = ...) -> None: ...

class InteractiveFormDataRequest(_message.Message):
    __slots__ = ("fields", "form_description", "iteration_id", "page_title", "page_url", "request_id", "timestamp", "answer_url")
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    FORM_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_TITLE_FIELD_NUMBER: _ClassVar[int]
    PAGE_URL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    ANSWER_URL_FIELD_NUMBER: _ClassVar[int]
    fields: _containers.RepeatedCompositeFieldContainer[FormField]
    form_description: str
    iteration_id: str
    page_title: str
    page_url: str
    request_id: str
    timestamp: float
    answer_url: str
    def __init__(self, fields: _Optional[_Iterable[_Union[FormField, _Mapping]]] = ..., form_description: _Optional[str] = ..., iteration_id: _Optional[str] = ..., page_title: _Optional[str] = ..., page_url: _Optional[str] = ..., request_id: _Optional[str] = ..., timestamp: _Optional[float] = ..., answer_url: _Optional[str] = ...) -> None: ...

class FormField(_message.Message):
    __slots__ = ("field_type", "label", "ref", "required", "current_value", "description", "options")
    FIELD_TYPE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    CURRENT_VALUE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    field_type: FormFieldType
    label: str
    ref: str
    required: bool
    current_value: str
    description: str
    options: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, field_type: _Optional[_Union[FormFieldType, str]] = ..., label: _Optional[str] = ..., ref: _Optional[str] = ..., required: _Optional[bool] = ..., current_value: _Optional[str] = ..., description: _Optional[str] = ..., options: _Optional[_Iterable[str]] = ...) -> None: ...

class ModelUsage(_message.Message):
    __slots__ = ("input_tokens", "output_tokens", "estimated_cost_usd", "cached_input_tokens", "cache_write_input_tokens")
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    ESTIMATED_COST_USD_FIELD_NUMBER: _ClassVar[int]
    CACHED_INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_WRITE_INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    input_tokens: int
    output_tokens: int
    estimated_cost_usd: float
    cached_input_tokens: int
    cache_write_input_tokens: int
    def __init__(self, input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., estimated_cost_usd: _Optional[float] = ..., cached_input_tokens: _Optional[int] = ..., cache_write_input_tokens: _Optional[int] = ...) -> None: ...

class SystemDebugCompression(_message.Message):
    __slots__ = ("compressed_size", "compression_percent", "iteration_id", "original_size", "timestamp")
    COMPRESSED_SIZE_FIELD_NUMBER: _ClassVar[int]
    COMPRESSION_PERCENT_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_SIZE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    compressed_size: int
    compression_percent: float
    iteration_id: str
    original_size: int
    timestamp: float
    def __init__(self, compressed_size: _Optional[int] = ..., compression_percent: _Optional[float] = ..., iteration_id: _Optional[str] = ..., original_size: _Optional[int] = ..., timestamp: _Optional[float] = ...) -> None: ...

class SystemDebugMessage(_message.Message):
    __slots__ = ("iteration_id", "messages", "timestamp")
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    iteration_id: str
    messages: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    timestamp: float
    def __init__(self, iteration_id: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ..., timestamp: _Optional[float] = ...) -> None: ...

class TaskAborted(_message.Message):
    __slots__ = ("final_answer", "iteration_id", "reason", "timestamp")
    FINAL_ANSWER_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    final_answer: str
    iteration_id: str
    reason: str
    timestamp: float
    def __init__(self, final_answer: _Optional[str] = ..., iteration_id: _Optional[str] = ..., reason: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class TaskCompleted(_message.Message):
    __slots__ = ("final_answer", "iteration_id", "timestamp", "success")
    FINAL_ANSWER_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    final_answer: str
    iteration_id: str
    timestamp: float
    success: bool
    def __init__(self, final_answer: _Optional[str] = ..., iteration_id: _Optional[str] = ..., timestamp: _Optional[float] = ..., success: _Optional[bool] = ...) -> None: ...

class TaskMetrics(_message.Message):
    __slots__ = ("ai_generation_count", "ai_generation_error_count", "event_counts", "iteration_id", "step_count", "timestamp", "total_input_tokens", "total_output_tokens", "model_usage", "total_cached_input_tokens", "total_cache_write_input_tokens")
    class EventCountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class ModelUsageEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ModelUsage
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ModelUsage, _Mapping]] = ...) -> None: ...
    AI_GENERATION_COUNT_FIELD_NUMBER: _ClassVar[int]
    AI_GENERATION_ERROR_COUNT_FIELD_NUMBER: _ClassVar[int]
    EVENT_COUNTS_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_COUNT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TOTAL_INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MODEL_USAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_CACHED_INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_CACHE_WRITE_INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    ai_generation_count: int
    ai_generation_error_count: int
    event_counts: _containers.ScalarMap[str, int]
    iteration_id: str
    step_count: int
    timestamp: float
    total_input_tokens: int
    total_output_tokens: int
    model_usage: _containers.MessageMap[str, ModelUsage]
    total_cached_input_tokens: int
    total_cache_write_input_tokens: int
    def __init__(self, ai_generation_count: _Optional[int] = ..., ai_generation_error_count: _Optional[int] = ..., event_counts: _Optional[_Mapping[str, int]] = ..., iteration_id: _Optional[str] = ..., step_count: _Optional[int] = ..., timestamp: _Optional[float] = ..., total_input_tokens: _Optional[int] = ..., total_output_tokens: _Optional[int] = ..., model_usage: _Optional[_Mapping[str, ModelUsage]] = ..., total_cached_input_tokens: _Optional[int] = ..., total_cache_write_input_tokens: _Optional[int] = ...) -> None: ...

class TaskMetricsIncremental(_message.Message):
    __slots__ = ("ai_generation_count", "ai_generation_error_count", "event_counts", "iteration_id", "step_count", "timestamp", "total_input_tokens", "total_output_tokens", "model_usage", "total_cached_input_tokens", "total_cache_write_input_tokens")
    class EventCountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class ModelUsageEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ModelUsage
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ModelUsage, _Mapping]] = ...) -> None: ...
    AI_GENERATION_COUNT_FIELD_NUMBER: _ClassVar[int]
    AI_GENERATION_ERROR_COUNT_FIELD_NUMBER: _ClassVar[int]
    EVENT_COUNTS_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_COUNT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TOTAL_INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MODEL_USAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_CACHED_INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_CACHE_WRITE_INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    ai_generation_count: int
    ai_generation_error_count: int
    event_counts: _containers.ScalarMap[str, int]
    iteration_id: str
    step_count: int
    timestamp: float
    total_input_tokens: int
    total_output_tokens: int
    model_usage: _containers.MessageMap[str, ModelUsage]
    total_cached_input_tokens: int
    total_cache_write_input_tokens: int
    def __init__(self, ai_generation_count: _Optional[int] = ..., ai_generation_error_count: _Optional[int] = ..., event_counts: _Optional[_Mapping[str, int]] = ..., iteration_id: _Optional[str] = ..., step_count: _Optional[int] = ..., timestamp: _Optional[float] = ..., total_input_tokens: _Optional[int] = ..., total_output_tokens: _Optional[int] = ..., model_usage: _Optional[_Mapping[str, ModelUsage]] = ..., total_cached_input_tokens: _Optional[int] = ..., total_cache_write_input_tokens: _Optional[int] = ...) -> None: ...

class TaskSetup(_message.Message):
    __slots__ = ("browser_name", "iteration_id", "task", "timestamp", "data", "guardrails", "has_api_key", "key_source", "model", "provider", "proxy", "pw_cdp_endpoint", "pw_cdp_endpoint_count", "pw_cdp_endpoints", "pw_endpoint", "url", "vision")
    BROWSER_NAME_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    GUARDRAILS_FIELD_NUMBER: _ClassVar[int]
    HAS_API_KEY_FIELD_NUMBER: _ClassVar[int]
    KEY_SOURCE_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    PROXY_FIELD_NUMBER: _ClassVar[int]
    PW_CDP_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    PW_CDP_ENDPOINT_COUNT_FIELD_NUMBER: _ClassVar[int]
    PW_CDP_ENDPOINTS_FIELD_NUMBER: _ClassVar[int]
    PW_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    VISION_FIELD_NUMBER: _ClassVar[int]
    browser_name: str
    iteration_id: str
    task: str
    timestamp: float
    data: _struct_pb2.Value
    guardrails: str
    has_api_key: bool
    key_source: KeySource
    model: str
    provider: str
    proxy: str
    pw_cdp_endpoint: str
    pw_cdp_endpoint_count: int
    pw_cdp_endpoints: _containers.RepeatedScalarFieldContainer[str]
    pw_endpoint: str
    url: str
    vision: bool
    def __init__(self, browser_name: _Optional[str] = ..., iteration_id: _Optional[str] = ..., task: _Optional[str] = ..., timestamp: _Optional[float] = ..., data: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., guardrails: _Optional[str] = ..., has_api_key: _Optional[bool] = ..., key_source: _Optional[_Union[KeySource, str]] = ..., model: _Optional[str] = ..., provider: _Optional[str] = ..., proxy: _Optional[str] = ..., pw_cdp_endpoint: _Optional[str] = ..., pw_cdp_endpoint_count: _Optional[int] = ..., pw_cdp_endpoints: _Optional[_Iterable[str]] = ..., pw_endpoint: _Optional[str] = ..., url: _Optional[str] = ..., vision: _Optional[bool] = ...) -> None: ...

class TaskStarted(_message.Message):
    __slots__ = ("iteration_id", "plan", "success_criteria", "task", "timestamp", "url", "action_items")
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_CRITERIA_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    ACTION_ITEMS_FIELD_NUMBER: _ClassVar[int]
    iteration_id: str
    plan: str
    success_criteria: str
    task: str
    timestamp: float
    url: str
    action_items: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, iteration_id: _Optional[str] = ..., plan: _Optional[str] = ..., success_criteria: _Optional[str] = ..., task: _Optional[str] = ..., timestamp: _Optional[float] = ..., url: _Optional[str] = ..., action_items: _Optional[_Iterable[str]] = ...) -> None: ...

class TaskTraceContext(_message.Message):
    __slots__ = ("trace_id", "span_id")
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    SPAN_ID_FIELD_NUMBER: _ClassVar[int]
    trace_id: str
    span_id: str
    def __init__(self, trace_id: _Optional[str] = ..., span_id: _Optional[str] = ...) -> None: ...

class TaskValidated(_message.Message):
    __slots__ = ("completion_quality", "final_answer", "iteration_id", "observation", "timestamp", "feedback")
    COMPLETION_QUALITY_FIELD_NUMBER: _ClassVar[int]
    FINAL_ANSWER_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    FEEDBACK_FIELD_NUMBER: _ClassVar[int]
    completion_quality: CompletionQuality
    final_answer: str
    iteration_id: str
    observation: str
    timestamp: float
    feedback: str
    def __init__(self, completion_quality: _Optional[_Union[CompletionQuality, str]] = ..., final_answer: _Optional[str] = ..., iteration_id: _Optional[str] = ..., observation: _Optional[str] = ..., timestamp: _Optional[float] = ..., feedback: _Optional[str] = ...) -> None: ...

class TaskValidationError(_message.Message):
    __slots__ = ("errors", "iteration_id", "raw_response", "retry_count", "timestamp")
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    RAW_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    RETRY_COUNT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    errors: _containers.RepeatedScalarFieldContainer[str]
    iteration_id: str
    raw_response: _struct_pb2.Value
    retry_count: int
    timestamp: float
    def __init__(self, errors: _Optional[_Iterable[str]] = ..., iteration_id: _Optional[str] = ..., raw_response: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., retry_count: _Optional[int] = ..., timestamp: _Optional[float] = ...) -> None: ...
