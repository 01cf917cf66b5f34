from google.protobuf import struct_pb2 as _struct_pb2
from outrider.v1 import profile_pb2 as _profile_pb2
from outrider.v1 import research_events_pb2 as _research_events_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ResumeAfterSideEffects(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESUME_AFTER_SIDE_EFFECTS_UNSPECIFIED: _ClassVar[ResumeAfterSideEffects]
    RESUME_AFTER_SIDE_EFFECTS_ASK: _ClassVar[ResumeAfterSideEffects]
    RESUME_AFTER_SIDE_EFFECTS_END: _ClassVar[ResumeAfterSideEffects]
    RESUME_AFTER_SIDE_EFFECTS_REPEAT: _ClassVar[ResumeAfterSideEffects]

class RecipeMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RECIPE_MODE_UNSPECIFIED: _ClassVar[RecipeMode]
    RECIPE_MODE_OFF: _ClassVar[RecipeMode]
    RECIPE_MODE_RECORD: _ClassVar[RecipeMode]
    RECIPE_MODE_REPLAY: _ClassVar[RecipeMode]
RESUME_AFTER_SIDE_EFFECTS_UNSPECIFIED: ResumeAfterSideEffects
RESUME_AFTER_SIDE_EFFECTS_ASK: ResumeAfterSideEffects
RESUME_AFTER_SIDE_EFFECTS_END: ResumeAfterSideEffects
RESUME_AFTER_SIDE_EFFECTS_REPEAT: ResumeAfterSideEffects
RECIPE_MODE_UNSPECIFIED: RecipeMode
RECIPE_MODE_OFF: RecipeMode
RECIPE_MODE_RECORD: RecipeMode
RECIPE_MODE_REPLAY: RecipeMode

class AutomateParams(_message.Message):
    __slots__ = ("task", "url", "data", "guardrails", "interactive", "max_iterations", "max_validation_attempts", "trusted_hostnames", "unsafe_mode", "geo_target")
    TASK_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    GUARDRAILS_FIELD_NUMBER: _ClassVar[int]
    INTERACTIVE_FIELD_NUMBER: _ClassVar[int]
    MAX_ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_VALIDATION_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    TRUSTED_HOSTNAMES_FIELD_NUMBER: _ClassVar[int]
    UNSAFE_MODE_FIELD_NUMBER: _ClassVar[int]
    GEO_TARGET_FIELD_NUMBER: _ClassVar[int]
    task: str
    url: str
    data: _struct_pb2.Struct
    guardrails: str
    interactive: bool
    max_iterations: int
    max_validation_attempts: int
    trusted_hostnames: _containers.RepeatedScalarFieldContainer[str]
    unsafe_mode: bool
    geo_target: GeoTarget
    def __init__(self, task: _Optional[str] = ..., url: _Optional[str] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., guardrails: _Optional[str] = ..., interactive: _Optional[bool] = ..., max_iterations: _Optional[int] = ..., max_validation_attempts: _Optional[int] = ..., trusted_hostnames: _Optional[_Iterable[str]] = ..., unsafe_mode: _Optional[bool] = ..., geo_target: _Optional[_Union[GeoTarget, _Mapping]] = ...) -> None: ...

class GeoTarget(_message.Message):
    __slots__ = ("country",)
    COUNTRY_FIELD_NUMBER: _ClassVar[int]
    country: str
    def __init__(self, country: _Optional[str] = ...) -> None: ...

class ResearchParams(_message.Message):
    __slots__ = ("query", "mode", "fetch_timeout", "nocache", "include_full_text")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    FETCH_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    NOCACHE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_FULL_TEXT_FIELD_NUMBER: _ClassVar[int]
    query: str
    mode: _research_events_pb2.ResearchMode
    fetch_timeout: int
    nocache: bool
    include_full_text: bool
    def __init__(self, query: _Optional[str] = ..., mode: _Optional[_Union[_research_events_pb2.ResearchMode, str]] = ..., fetch_timeout: _Optional[int] = ..., nocache: _Optional[bool] = ..., include_full_text: _Optional[bool] = ...) -> None: ...

class RunOptions(_message.Message):
    __slots__ = ("cancel_on_disconnect", "include_screenshot_images", "model", "allowed_domains", "blocked_domains", "refuse_held_actions", "omit_prompts", "recipes", "resume_after_side_effects", "session", "profile", "profile_save", "credentials", "by_hand")
    CANCEL_ON_DISCONNECT_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_SCREENSHOT_IMAGES_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_DOMAINS_FIELD_NUMBER: _ClassVar[int]
    BLOCKED_DOMAINS_FIELD_NUMBER: _ClassVar[int]
    REFUSE_HELD_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    OMIT_PROMPTS_FIELD_NUMBER: _ClassVar[int]
    RECIPES_FIELD_NUMBER: _ClassVar[int]
    RESUME_AFTER_SIDE_EFFECTS_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    PROFILE_SAVE_FIELD_NUMBER: _ClassVar[int]
    CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    BY_HAND_FIELD_NUMBER: _ClassVar[int]
    cancel_on_disconnect: bool
    include_screenshot_images: bool
    model: str
    allowed_domains: _containers.RepeatedScalarFieldContainer[str]
    blocked_domains: _containers.RepeatedScalarFieldContainer[str]
    refuse_held_actions: bool
    omit_prompts: bool
    recipes: RecipeMode
    resume_after_side_effects: ResumeAfterSideEffects
    session: str
    profile: str
    profile_save: _profile_pb2.ProfileSave
    credentials: _containers.RepeatedScalarFieldContainer[str]
    by_hand: bool
    def __init__(self, cancel_on_disconnect: _Optional[bool] = ..., include_screenshot_images: _Optional[bool] = ..., model: _Optional[str] = ..., allowed_domains: _Optional[_Iterable[str]] = ..., blocked_domains: _Optional[_Iterable[str]] = ..., refuse_held_actions: _Optional[bool] = ..., omit_prompts: _Optional[bool] = ..., recipes: _Optional[_Union[RecipeMode, str]] = ..., resume_after_side_effects: _Optional[_Union[ResumeAfterSideEffects, str]] = ..., session: _Optional[str] = ..., profile: _Optional[str] = ..., profile_save: _Optional[_Union[_profile_pb2.ProfileSave, str]] = ..., credentials: _Optional[_Iterable[str]] = ..., by_hand: _Optional[bool] = ...) -> None: ...
