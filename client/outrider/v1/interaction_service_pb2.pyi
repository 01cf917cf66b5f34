from outrider.v1 import interaction_pb2 as _interaction_pb2
from outrider.v1 import params_pb2 as _params_pb2
from outrider.v1 import run_event_pb2 as _run_event_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InteractRequest(_message.Message):
    __slots__ = ("start", "attach", "form_data", "approval", "cancel")
    START_FIELD_NUMBER: _ClassVar[int]
    ATTACH_FIELD_NUMBER: _ClassVar[int]
    FORM_DATA_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_FIELD_NUMBER: _ClassVar[int]
    CANCEL_FIELD_NUMBER: _ClassVar[int]
    start: InteractStart
    attach: InteractAttach
    form_data: FormDataAnswer
    approval: ApprovalAnswer
    cancel: InteractCancel
    def __init__(self, start: _Optional[_Union[InteractStart, _Mapping]] = ..., attach: _Optional[_Union[InteractAttach, _Mapping]] = ..., form_data: _Optional[_Union[FormDataAnswer, _Mapping]] = ..., approval: _Optional[_Union[ApprovalAnswer, _Mapping]] = ..., cancel: _Optional[_Union[InteractCancel, _Mapping]] = ...) -> None: ...

class InteractStart(_message.Message):
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

class InteractAttach(_message.Message):
    __slots__ = ("run", "after_sequence")
    RUN_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    run: str
    after_sequence: int
    def __init__(self, run: _Optional[str] = ..., after_sequence: _Optional[int] = ...) -> None: ...

class FormDataAnswer(_message.Message):
    __slots__ = ("request_id", "fields", "cancelled")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    fields: _containers.RepeatedCompositeFieldContainer[_interaction_pb2.FieldValue]
    cancelled: bool
    def __init__(self, request_id: _Optional[str] = ..., fields: _Optional[_Iterable[_Union[_interaction_pb2.FieldValue, _Mapping]]] = ..., cancelled: _Optional[bool] = ...) -> None: ...

class ApprovalAnswer(_message.Message):
    __slots__ = ("approval_id", "decision", "scope", "reason")
    APPROVAL_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    approval_id: str
    decision: _run_event_pb2.ApprovalDecision
    scope: _run_event_pb2.ApprovalScope
    reason: str
    def __init__(self, approval_id: _Optional[str] = ..., decision: _Optional[_Union[_run_event_pb2.ApprovalDecision, str]] = ..., scope: _Optional[_Union[_run_event_pb2.ApprovalScope, str]] = ..., reason: _Optional[str] = ...) -> None: ...

class InteractCancel(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class InteractResponse(_message.Message):
    __slots__ = ("event", "heartbeat", "answer_result")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_RESULT_FIELD_NUMBER: _ClassVar[int]
    event: _run_event_pb2.RunEvent
    heartbeat: _run_event_pb2.Heartbeat
    answer_result: AnswerResult
    def __init__(self, event: _Optional[_Union[_run_event_pb2.RunEvent, _Mapping]] = ..., heartbeat: _Optional[_Union[_run_event_pb2.Heartbeat, _Mapping]] = ..., answer_result: _Optional[_Union[AnswerResult, _Mapping]] = ...) -> None: ...

class AnswerResult(_message.Message):
    __slots__ = ("interaction_id", "accepted", "reason", "message")
    INTERACTION_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    interaction_id: str
    accepted: bool
    reason: str
    message: str
    def __init__(self, interaction_id: _Optional[str] = ..., accepted: _Optional[bool] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class SubmitInputRequest(_message.Message):
    __slots__ = ("name", "fields", "cancelled")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    name: str
    fields: _containers.RepeatedCompositeFieldContainer[_interaction_pb2.FieldValue]
    cancelled: bool
    def __init__(self, name: _Optional[str] = ..., fields: _Optional[_Iterable[_Union[_interaction_pb2.FieldValue, _Mapping]]] = ..., cancelled: _Optional[bool] = ...) -> None: ...

class SubmitInputResponse(_message.Message):
    __slots__ = ("interaction",)
    INTERACTION_FIELD_NUMBER: _ClassVar[int]
    interaction: _interaction_pb2.Interaction
    def __init__(self, interaction: _Optional[_Union[_interaction_pb2.Interaction, _Mapping]] = ...) -> None: ...

class DecideApprovalRequest(_message.Message):
    __slots__ = ("name", "decision", "scope", "reason")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    name: str
    decision: _run_event_pb2.ApprovalDecision
    scope: _run_event_pb2.ApprovalScope
    reason: str
    def __init__(self, name: _Optional[str] = ..., decision: _Optional[_Union[_run_event_pb2.ApprovalDecision, str]] = ..., scope: _Optional[_Union[_run_event_pb2.ApprovalScope, str]] = ..., reason: _Optional[str] = ...) -> None: ...

class DecideApprovalResponse(_message.Message):
    __slots__ = ("interaction",)
    INTERACTION_FIELD_NUMBER: _ClassVar[int]
    interaction: _interaction_pb2.Interaction
    def __init__(self, interaction: _Optional[_Union[_interaction_pb2.Interaction, _Mapping]] = ...) -> None: ...

class ListInteractionsRequest(_message.Message):
    __slots__ = ("run", "states", "page_size", "page_token")
    RUN_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    run: str
    states: _containers.RepeatedScalarFieldContainer[_interaction_pb2.InteractionState]
    page_size: int
    page_token: str
    def __init__(self, run: _Optional[str] = ..., states: _Optional[_Iterable[_Union[_interaction_pb2.InteractionState, str]]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListInteractionsResponse(_message.Message):
    __slots__ = ("interactions", "next_page_token")
    INTERACTIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    interactions: _containers.RepeatedCompositeFieldContainer[_interaction_pb2.Interaction]
    next_page_token: str
    def __init__(self, interactions: _Optional[_Iterable[_Union[_interaction_pb2.Interaction, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetInteractionRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetInteractionResponse(_message.Message):
    __slots__ = ("interaction",)
    INTERACTION_FIELD_NUMBER: _ClassVar[int]
    interaction: _interaction_pb2.Interaction
    def __init__(self, interaction: _Optional[_Union[_interaction_pb2.Interaction, _Mapping]] = ...) -> None: ...
