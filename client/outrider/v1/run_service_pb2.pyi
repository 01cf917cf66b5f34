from outrider.v1 import params_pb2 as _params_pb2
from outrider.v1 import run_pb2 as _run_pb2
from outrider.v1 import run_event_pb2 as _run_event_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AutomateRequest(_message.Message):
    __slots__ = ("params", "options", "request_id")
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    params: _params_pb2.AutomateParams
    options: _params_pb2.RunOptions
    request_id: str
    def __init__(self, params: _Optional[_Union[_params_pb2.AutomateParams, _Mapping]] = ..., options: _Optional[_Union[_params_pb2.RunOptions, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class AutomateResponse(_message.Message):
    __slots__ = ("event", "heartbeat")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    event: _run_event_pb2.RunEvent
    heartbeat: _run_event_pb2.Heartbeat
    def __init__(self, event: _Optional[_Union[_run_event_pb2.RunEvent, _Mapping]] = ..., heartbeat: _Optional[_Union[_run_event_pb2.Heartbeat, _Mapping]] = ...) -> None: ...

class ResearchRequest(_message.Message):
    __slots__ = ("params", "options", "request_id")
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    params: _params_pb2.ResearchParams
    options: _params_pb2.RunOptions
    request_id: str
    def __init__(self, params: _Optional[_Union[_params_pb2.ResearchParams, _Mapping]] = ..., options: _Optional[_Union[_params_pb2.RunOptions, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class ResearchResponse(_message.Message):
    __slots__ = ("event", "heartbeat")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    event: _run_event_pb2.RunEvent
    heartbeat: _run_event_pb2.Heartbeat
    def __init__(self, event: _Optional[_Union[_run_event_pb2.RunEvent, _Mapping]] = ..., heartbeat: _Optional[_Union[_run_event_pb2.Heartbeat, _Mapping]] = ...) -> None: ...

class CreateRunRequest(_message.Message):
    __slots__ = ("automate", "research", "options", "request_id")
    AUTOMATE_FIELD_NUMBER: _ClassVar[int]
    RESEARCH_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    automate: _params_pb2.AutomateParams
    research: _params_pb2.ResearchParams
    options: _params_pb2.RunOptions
    request_id: str
    def __init__(self, automate: _Optional[_Union[_params_pb2.AutomateParams, _Mapping]] = ..., research: _Optional[_Union[_params_pb2.ResearchParams, _Mapping]] = ..., options: _Optional[_Union[_params_pb2.RunOptions, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class CreateRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: _run_pb2.Run
    def __init__(self, run: _Optional[_Union[_run_pb2.Run, _Mapping]] = ...) -> None: ...

class GetRunRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: _run_pb2.Run
    def __init__(self, run: _Optional[_Union[_run_pb2.Run, _Mapping]] = ...) -> None: ...

class ListRunsRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "states", "kind", "task_contains")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TASK_CONTAINS_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    states: _containers.RepeatedScalarFieldContainer[_run_pb2.RunState]
    kind: _run_pb2.RunKind
    task_contains: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., states: _Optional[_Iterable[_Union[_run_pb2.RunState, str]]] = ..., kind: _Optional[_Union[_run_pb2.RunKind, str]] = ..., task_contains: _Optional[str] = ...) -> None: ...

class ListRunsResponse(_message.Message):
    __slots__ = ("runs", "next_page_token")
    RUNS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    runs: _containers.RepeatedCompositeFieldContainer[_run_pb2.Run]
    next_page_token: str
    def __init__(self, runs: _Optional[_Iterable[_Union[_run_pb2.Run, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class CancelRunRequest(_message.Message):
    __slots__ = ("name", "reason")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    name: str
    reason: str
    def __init__(self, name: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class CancelRunResponse(_message.Message):
    __slots__ = ("run",)
    RUN_FIELD_NUMBER: _ClassVar[int]
    run: _run_pb2.Run
    def __init__(self, run: _Optional[_Union[_run_pb2.Run, _Mapping]] = ...) -> None: ...

class StreamRunEventsRequest(_message.Message):
    __slots__ = ("name", "after_sequence")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    name: str
    after_sequence: int
    def __init__(self, name: _Optional[str] = ..., after_sequence: _Optional[int] = ...) -> None: ...

class StreamRunEventsResponse(_message.Message):
    __slots__ = ("event", "heartbeat")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    event: _run_event_pb2.RunEvent
    heartbeat: _run_event_pb2.Heartbeat
    def __init__(self, event: _Optional[_Union[_run_event_pb2.RunEvent, _Mapping]] = ..., heartbeat: _Optional[_Union[_run_event_pb2.Heartbeat, _Mapping]] = ...) -> None: ...

class ReadArtifactRequest(_message.Message):
    __slots__ = ("name", "offset", "chunk_size")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    CHUNK_SIZE_FIELD_NUMBER: _ClassVar[int]
    name: str
    offset: int
    chunk_size: int
    def __init__(self, name: _Optional[str] = ..., offset: _Optional[int] = ..., chunk_size: _Optional[int] = ...) -> None: ...

class ReadArtifactResponse(_message.Message):
    __slots__ = ("data", "offset", "total_size", "content_type")
    DATA_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SIZE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    offset: int
    total_size: int
    content_type: str
    def __init__(self, data: _Optional[bytes] = ..., offset: _Optional[int] = ..., total_size: _Optional[int] = ..., content_type: _Optional[str] = ...) -> None: ...

class DeleteRunRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class DeleteRunResponse(_message.Message):
    __slots__ = ("run", "freed_artifact_bytes")
    RUN_FIELD_NUMBER: _ClassVar[int]
    FREED_ARTIFACT_BYTES_FIELD_NUMBER: _ClassVar[int]
    run: _run_pb2.Run
    freed_artifact_bytes: int
    def __init__(self, run: _Optional[_Union[_run_pb2.Run, _Mapping]] = ..., freed_artifact_bytes: _Optional[int] = ...) -> None: ...
