import datetime

from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from outrider.v1 import automate_events_pb2 as _automate_events_pb2
from outrider.v1 import browser_control_pb2 as _browser_control_pb2
from outrider.v1 import credential_pb2 as _credential_pb2
from outrider.v1 import profile_pb2 as _profile_pb2
from outrider.v1 import research_events_pb2 as _research_events_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ApprovalDecision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    APPROVAL_DECISION_UNSPECIFIED: _ClassVar[ApprovalDecision]
    APPROVAL_DECISION_APPROVE: _ClassVar[ApprovalDecision]
    APPROVAL_DECISION_REJECT: _ClassVar[ApprovalDecision]

class ApprovalScope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    APPROVAL_SCOPE_UNSPECIFIED: _ClassVar[ApprovalScope]
    APPROVAL_SCOPE_ONCE: _ClassVar[ApprovalScope]
    APPROVAL_SCOPE_ALWAYS: _ClassVar[ApprovalScope]

class ResolutionSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESOLUTION_SOURCE_UNSPECIFIED: _ClassVar[ResolutionSource]
    RESOLUTION_SOURCE_CALLER: _ClassVar[ResolutionSource]
    RESOLUTION_SOURCE_EXPIRED: _ClassVar[ResolutionSource]
    RESOLUTION_SOURCE_RUN_ENDED: _ClassVar[ResolutionSource]

class SideEffectKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SIDE_EFFECT_KIND_UNSPECIFIED: _ClassVar[SideEffectKind]
    SIDE_EFFECT_KIND_FORM_SUBMIT: _ClassVar[SideEffectKind]
    SIDE_EFFECT_KIND_REQUEST: _ClassVar[SideEffectKind]
    SIDE_EFFECT_KIND_DOWNLOAD: _ClassVar[SideEffectKind]
    SIDE_EFFECT_KIND_UPLOAD: _ClassVar[SideEffectKind]
    SIDE_EFFECT_KIND_APPROVAL_GRANTED: _ClassVar[SideEffectKind]
APPROVAL_DECISION_UNSPECIFIED: ApprovalDecision
APPROVAL_DECISION_APPROVE: ApprovalDecision
APPROVAL_DECISION_REJECT: ApprovalDecision
APPROVAL_SCOPE_UNSPECIFIED: ApprovalScope
APPROVAL_SCOPE_ONCE: ApprovalScope
APPROVAL_SCOPE_ALWAYS: ApprovalScope
RESOLUTION_SOURCE_UNSPECIFIED: ResolutionSource
RESOLUTION_SOURCE_CALLER: ResolutionSource
RESOLUTION_SOURCE_EXPIRED: ResolutionSource
RESOLUTION_SOURCE_RUN_ENDED: ResolutionSource
SIDE_EFFECT_KIND_UNSPECIFIED: SideEffectKind
SIDE_EFFECT_KIND_FORM_SUBMIT: SideEffectKind
SIDE_EFFECT_KIND_REQUEST: SideEffectKind
SIDE_EFFECT_KIND_DOWNLOAD: SideEffectKind
SIDE_EFFECT_KIND_UPLOAD: SideEffectKind
SIDE_EFFECT_KIND_APPROVAL_GRANTED: SideEffectKind

class RunEvent(_message.Message):
    __slots__ = ("run", "sequence", "time", "automate", "research", "approval_requested", "approval_resolved", "input_resolved", "run_queued", "recipe_replayed", "run_resumed", "side_effect", "takeover_requested", "takeover_started", "takeover_ended", "profile_loaded", "profile_needs_login", "profile_saved", "credential_used", "artifact")
    RUN_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    AUTOMATE_FIELD_NUMBER: _ClassVar[int]
    RESEARCH_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_RESOLVED_FIELD_NUMBER: _ClassVar[int]
    INPUT_RESOLVED_FIELD_NUMBER: _ClassVar[int]
    RUN_QUEUED_FIELD_NUMBER: _ClassVar[int]
    RECIPE_REPLAYED_FIELD_NUMBER: _ClassVar[int]
    RUN_RESUMED_FIELD_NUMBER: _ClassVar[int]
    SIDE_EFFECT_FIELD_NUMBER: _ClassVar[int]
    TAKEOVER_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    TAKEOVER_STARTED_FIELD_NUMBER: _ClassVar[int]
    TAKEOVER_ENDED_FIELD_NUMBER: _ClassVar[int]
    PROFILE_LOADED_FIELD_NUMBER: _ClassVar[int]
    PROFILE_NEEDS_LOGIN_FIELD_NUMBER: _ClassVar[int]
    PROFILE_SAVED_FIELD_NUMBER: _ClassVar[int]
    CREDENTIAL_USED_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    run: str
    sequence: int
    time: _timestamp_pb2.Timestamp
    automate: _automate_events_pb2.AutomateEvent
    research: _research_events_pb2.ResearchEvent
    approval_requested: ApprovalRequested
    approval_resolved: ApprovalResolved
    input_resolved: InputResolved
    run_queued: RunQueued
    recipe_replayed: RecipeReplayed
    run_resumed: RunResumed
    side_effect: SideEffect
    takeover_requested: _browser_control_pb2.TakeoverRequested
    takeover_started: _browser_control_pb2.TakeoverStarted
    takeover_ended: _browser_control_pb2.TakeoverEnded
    profile_loaded: _profile_pb2.ProfileLoaded
    profile_needs_login: _profile_pb2.ProfileNeedsLogin
    profile_saved: _profile_pb2.ProfileSaved
    credential_used: _credential_pb2.CredentialUse
    artifact: str
    def __init__(self, run: _Optional[str] = ..., sequence: _Optional[int] = ..., time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., automate: _Optional[_Union[_automate_events_pb2.AutomateEvent, _Mapping]] = ..., research: _Optional[_Union[_research_events_pb2.ResearchEvent, _Mapping]] = ..., approval_requested: _Optional[_Union[ApprovalRequested, _Mapping]] = ..., approval_resolved: _Optional[_Union[ApprovalResolved, _Mapping]] = ..., input_resolved: _Optional[_Union[InputResolved, _Mapping]] = ..., run_queued: _Optional[_Union[RunQueued, _Mapping]] = ..., recipe_replayed: _Optional[_Union[RecipeReplayed, _Mapping]] = ..., run_resumed: _Optional[_Union[RunResumed, _Mapping]] = ..., side_effect: _Optional[_Union[SideEffect, _Mapping]] = ..., takeover_requested: _Optional[_Union[_browser_control_pb2.TakeoverRequested, _Mapping]] = ..., takeover_started: _Optional[_Union[_browser_control_pb2.TakeoverStarted, _Mapping]] = ..., takeover_ended: _Optional[_Union[_browser_control_pb2.TakeoverEnded, _Mapping]] = ..., profile_loaded: _Optional[_Union[_profile_pb2.ProfileLoaded, _Mapping]] = ..., profile_needs_login: _Optional[_Union[_profile_pb2.ProfileNeedsLogin, _Mapping]] = ..., profile_saved: _Optional[_Union[_profile_pb2.ProfileSaved, _Mapping]] = ..., credential_used: _Optional[_Union[_credential_pb2.CredentialUse, _Mapping]] = ..., artifact: _Optional[str] = ...) -> None: ...

class Heartbeat(_message.Message):
    __slots__ = ("time", "last_sequence")
    TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    time: _timestamp_pb2.Timestamp
    last_sequence: int
    def __init__(self, time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_sequence: _Optional[int] = ...) -> None: ...

class ApprovalRequested(_message.Message):
    __slots__ = ("approval_id", "iteration_id", "action", "ref", "url", "reason", "details", "expire_time", "answer_url", "question")
    APPROVAL_ID_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    ANSWER_URL_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    approval_id: str
    iteration_id: str
    action: str
    ref: str
    url: str
    reason: str
    details: _struct_pb2.Struct
    expire_time: _timestamp_pb2.Timestamp
    answer_url: str
    question: str
    def __init__(self, approval_id: _Optional[str] = ..., iteration_id: _Optional[str] = ..., action: _Optional[str] = ..., ref: _Optional[str] = ..., url: _Optional[str] = ..., reason: _Optional[str] = ..., details: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., answer_url: _Optional[str] = ..., question: _Optional[str] = ...) -> None: ...

class ApprovalResolved(_message.Message):
    __slots__ = ("approval_id", "decision", "scope", "reason", "source", "resolved_by")
    APPROVAL_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_BY_FIELD_NUMBER: _ClassVar[int]
    approval_id: str
    decision: ApprovalDecision
    scope: ApprovalScope
    reason: str
    source: ResolutionSource
    resolved_by: str
    def __init__(self, approval_id: _Optional[str] = ..., decision: _Optional[_Union[ApprovalDecision, str]] = ..., scope: _Optional[_Union[ApprovalScope, str]] = ..., reason: _Optional[str] = ..., source: _Optional[_Union[ResolutionSource, str]] = ..., resolved_by: _Optional[str] = ...) -> None: ...

class InputResolved(_message.Message):
    __slots__ = ("request_id", "submitted", "refs", "source", "resolved_by")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SUBMITTED_FIELD_NUMBER: _ClassVar[int]
    REFS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_BY_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    submitted: bool
    refs: _containers.RepeatedScalarFieldContainer[str]
    source: ResolutionSource
    resolved_by: str
    def __init__(self, request_id: _Optional[str] = ..., submitted: _Optional[bool] = ..., refs: _Optional[_Iterable[str]] = ..., source: _Optional[_Union[ResolutionSource, str]] = ..., resolved_by: _Optional[str] = ...) -> None: ...

class RunQueued(_message.Message):
    __slots__ = ("position",)
    POSITION_FIELD_NUMBER: _ClassVar[int]
    position: int
    def __init__(self, position: _Optional[int] = ...) -> None: ...

class RunResumed(_message.Message):
    __slots__ = ("attempt", "reason")
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    reason: str
    def __init__(self, attempt: _Optional[int] = ..., reason: _Optional[str] = ...) -> None: ...

class RecipeReplayed(_message.Message):
    __slots__ = ("recipe_id", "steps_total", "steps_replayed", "handed_over", "divergence", "retired")
    RECIPE_ID_FIELD_NUMBER: _ClassVar[int]
    STEPS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    STEPS_REPLAYED_FIELD_NUMBER: _ClassVar[int]
    HANDED_OVER_FIELD_NUMBER: _ClassVar[int]
    DIVERGENCE_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    recipe_id: str
    steps_total: int
    steps_replayed: int
    handed_over: bool
    divergence: str
    retired: bool
    def __init__(self, recipe_id: _Optional[str] = ..., steps_total: _Optional[int] = ..., steps_replayed: _Optional[int] = ..., handed_over: _Optional[bool] = ..., divergence: _Optional[str] = ..., retired: _Optional[bool] = ...) -> None: ...

class SideEffect(_message.Message):
    __slots__ = ("kind", "number", "attempt", "iteration_id", "action", "method", "url", "description")
    KIND_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    ITERATION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    kind: SideEffectKind
    number: int
    attempt: int
    iteration_id: str
    action: str
    method: str
    url: str
    description: str
    def __init__(self, kind: _Optional[_Union[SideEffectKind, str]] = ..., number: _Optional[int] = ..., attempt: _Optional[int] = ..., iteration_id: _Optional[str] = ..., action: _Optional[str] = ..., method: _Optional[str] = ..., url: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...
