import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from outrider.v1 import params_pb2 as _params_pb2
from outrider.v1 import profile_pb2 as _profile_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_KIND_UNSPECIFIED: _ClassVar[RunKind]
    RUN_KIND_AUTOMATE: _ClassVar[RunKind]
    RUN_KIND_RESEARCH: _ClassVar[RunKind]

class RunState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_STATE_UNSPECIFIED: _ClassVar[RunState]
    RUN_STATE_QUEUED: _ClassVar[RunState]
    RUN_STATE_RUNNING: _ClassVar[RunState]
    RUN_STATE_INPUT_REQUIRED: _ClassVar[RunState]
    RUN_STATE_APPROVAL_REQUIRED: _ClassVar[RunState]
    RUN_STATE_SUCCEEDED: _ClassVar[RunState]
    RUN_STATE_FAILED: _ClassVar[RunState]
    RUN_STATE_CANCELLED: _ClassVar[RunState]
RUN_KIND_UNSPECIFIED: RunKind
RUN_KIND_AUTOMATE: RunKind
RUN_KIND_RESEARCH: RunKind
RUN_STATE_UNSPECIFIED: RunState
RUN_STATE_QUEUED: RunState
RUN_STATE_RUNNING: RunState
RUN_STATE_INPUT_REQUIRED: RunState
RUN_STATE_APPROVAL_REQUIRED: RunState
RUN_STATE_SUCCEEDED: RunState
RUN_STATE_FAILED: RunState
RUN_STATE_CANCELLED: RunState

class Run(_message.Message):
    __slots__ = ("name", "kind", "state", "create_time", "update_time", "end_time", "last_sequence", "automate", "research", "options", "outcome", "tenant", "created_by", "cancelled_by", "labels", "start_time", "usage", "queue_position")
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
    LAST_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    AUTOMATE_FIELD_NUMBER: _ClassVar[int]
    RESEARCH_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_BY_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    QUEUE_POSITION_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: RunKind
    state: RunState
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    last_sequence: int
    automate: _params_pb2.AutomateParams
    research: _params_pb2.ResearchParams
    options: _params_pb2.RunOptions
    outcome: RunOutcome
    tenant: str
    created_by: str
    cancelled_by: str
    labels: _containers.ScalarMap[str, str]
    start_time: _timestamp_pb2.Timestamp
    usage: RunUsage
    queue_position: int
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[_Union[RunKind, str]] = ..., state: _Optional[_Union[RunState, str]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_sequence: _Optional[int] = ..., automate: _Optional[_Union[_params_pb2.AutomateParams, _Mapping]] = ..., research: _Optional[_Union[_params_pb2.ResearchParams, _Mapping]] = ..., options: _Optional[_Union[_params_pb2.RunOptions, _Mapping]] = ..., outcome: _Optional[_Union[RunOutcome, _Mapping]] = ..., tenant: _Optional[str] = ..., created_by: _Optional[str] = ..., cancelled_by: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., usage: _Optional[_Union[RunUsage, _Mapping]] = ..., queue_position: _Optional[int] = ...) -> None: ...

class RunUsage(_message.Message):
    __slots__ = ("steps", "input_tokens", "output_tokens", "estimated_cost_usd", "actions")
    STEPS_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    ESTIMATED_COST_USD_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    steps: int
    input_tokens: int
    output_tokens: int
    estimated_cost_usd: float
    actions: int
    def __init__(self, steps: _Optional[int] = ..., input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., estimated_cost_usd: _Optional[float] = ..., actions: _Optional[int] = ...) -> None: ...

class RunOutcome(_message.Message):
    __slots__ = ("success", "result", "error_code", "error_message", "profile_save")
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PROFILE_SAVE_FIELD_NUMBER: _ClassVar[int]
    success: bool
    result: str
    error_code: str
    error_message: str
    profile_save: _profile_pb2.ProfileSaved
    def __init__(self, success: _Optional[bool] = ..., result: _Optional[str] = ..., error_code: _Optional[str] = ..., error_message: _Optional[str] = ..., profile_save: _Optional[_Union[_profile_pb2.ProfileSaved, _Mapping]] = ...) -> None: ...
