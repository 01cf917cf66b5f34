import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from outrider.v1 import interaction_pb2 as _interaction_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ControlState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONTROL_STATE_UNSPECIFIED: _ClassVar[ControlState]
    CONTROL_STATE_AGENT: _ClassVar[ControlState]
    CONTROL_STATE_REQUESTED: _ClassVar[ControlState]
    CONTROL_STATE_PERSON: _ClassVar[ControlState]
    CONTROL_STATE_NO_BROWSER: _ClassVar[ControlState]

class MouseAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MOUSE_ACTION_UNSPECIFIED: _ClassVar[MouseAction]
    MOUSE_ACTION_PRESS: _ClassVar[MouseAction]
    MOUSE_ACTION_RELEASE: _ClassVar[MouseAction]
    MOUSE_ACTION_MOVE: _ClassVar[MouseAction]

class MouseButton(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MOUSE_BUTTON_UNSPECIFIED: _ClassVar[MouseButton]
    MOUSE_BUTTON_LEFT: _ClassVar[MouseButton]
    MOUSE_BUTTON_MIDDLE: _ClassVar[MouseButton]
    MOUSE_BUTTON_RIGHT: _ClassVar[MouseButton]

class KeyAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    KEY_ACTION_UNSPECIFIED: _ClassVar[KeyAction]
    KEY_ACTION_DOWN: _ClassVar[KeyAction]
    KEY_ACTION_UP: _ClassVar[KeyAction]

class NavigateAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NAVIGATE_ACTION_UNSPECIFIED: _ClassVar[NavigateAction]
    NAVIGATE_ACTION_GOTO: _ClassVar[NavigateAction]
    NAVIGATE_ACTION_BACK: _ClassVar[NavigateAction]
    NAVIGATE_ACTION_FORWARD: _ClassVar[NavigateAction]
    NAVIGATE_ACTION_RELOAD: _ClassVar[NavigateAction]
CONTROL_STATE_UNSPECIFIED: ControlState
CONTROL_STATE_AGENT: ControlState
CONTROL_STATE_REQUESTED: ControlState
CONTROL_STATE_PERSON: ControlState
CONTROL_STATE_NO_BROWSER: ControlState
MOUSE_ACTION_UNSPECIFIED: MouseAction
MOUSE_ACTION_PRESS: MouseAction
MOUSE_ACTION_RELEASE: MouseAction
MOUSE_ACTION_MOVE: MouseAction
MOUSE_BUTTON_UNSPECIFIED: MouseButton
MOUSE_BUTTON_LEFT: MouseButton
MOUSE_BUTTON_MIDDLE: MouseButton
MOUSE_BUTTON_RIGHT: MouseButton
KEY_ACTION_UNSPECIFIED: KeyAction
KEY_ACTION_DOWN: KeyAction
KEY_ACTION_UP: KeyAction
NAVIGATE_ACTION_UNSPECIFIED: NavigateAction
NAVIGATE_ACTION_GOTO: NavigateAction
NAVIGATE_ACTION_BACK: NavigateAction
NAVIGATE_ACTION_FORWARD: NavigateAction
NAVIGATE_ACTION_RELOAD: NavigateAction

class WatchScreenRequest(_message.Message):
    __slots__ = ("run", "max_width", "max_height")
    RUN_FIELD_NUMBER: _ClassVar[int]
    MAX_WIDTH_FIELD_NUMBER: _ClassVar[int]
    MAX_HEIGHT_FIELD_NUMBER: _ClassVar[int]
    run: str
    max_width: int
    max_height: int
    def __init__(self, run: _Optional[str] = ..., max_width: _Optional[int] = ..., max_height: _Optional[int] = ...) -> None: ...

class WatchScreenResponse(_message.Message):
    __slots__ = ("frame", "control")
    FRAME_FIELD_NUMBER: _ClassVar[int]
    CONTROL_FIELD_NUMBER: _ClassVar[int]
    frame: ScreenFrame
    control: ControlStatus
    def __init__(self, frame: _Optional[_Union[ScreenFrame, _Mapping]] = ..., control: _Optional[_Union[ControlStatus, _Mapping]] = ...) -> None: ...

class ScreenFrame(_message.Message):
    __slots__ = ("data", "media_type", "viewport_width", "viewport_height", "capture_time", "scroll_x", "scroll_y", "url", "title", "tab", "tabs")
    DATA_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    VIEWPORT_WIDTH_FIELD_NUMBER: _ClassVar[int]
    VIEWPORT_HEIGHT_FIELD_NUMBER: _ClassVar[int]
    CAPTURE_TIME_FIELD_NUMBER: _ClassVar[int]
    SCROLL_X_FIELD_NUMBER: _ClassVar[int]
    SCROLL_Y_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TAB_FIELD_NUMBER: _ClassVar[int]
    TABS_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    media_type: str
    viewport_width: int
    viewport_height: int
    capture_time: _timestamp_pb2.Timestamp
    scroll_x: float
    scroll_y: float
    url: str
    title: str
    tab: int
    tabs: int
    def __init__(self, data: _Optional[bytes] = ..., media_type: _Optional[str] = ..., viewport_width: _Optional[int] = ..., viewport_height: _Optional[int] = ..., capture_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., scroll_x: _Optional[float] = ..., scroll_y: _Optional[float] = ..., url: _Optional[str] = ..., title: _Optional[str] = ..., tab: _Optional[int] = ..., tabs: _Optional[int] = ...) -> None: ...

class ControlStatus(_message.Message):
    __slots__ = ("state", "takeover", "driver", "expire_time", "reason")
    STATE_FIELD_NUMBER: _ClassVar[int]
    TAKEOVER_FIELD_NUMBER: _ClassVar[int]
    DRIVER_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    state: ControlState
    takeover: str
    driver: str
    expire_time: _timestamp_pb2.Timestamp
    reason: str
    def __init__(self, state: _Optional[_Union[ControlState, str]] = ..., takeover: _Optional[str] = ..., driver: _Optional[str] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reason: _Optional[str] = ...) -> None: ...

class TakeOverRequest(_message.Message):
    __slots__ = ("run", "force")
    RUN_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    run: str
    force: bool
    def __init__(self, run: _Optional[str] = ..., force: _Optional[bool] = ...) -> None: ...

class TakeOverResponse(_message.Message):
    __slots__ = ("takeover",)
    TAKEOVER_FIELD_NUMBER: _ClassVar[int]
    takeover: _interaction_pb2.Interaction
    def __init__(self, takeover: _Optional[_Union[_interaction_pb2.Interaction, _Mapping]] = ...) -> None: ...

class ForwardInputRequest(_message.Message):
    __slots__ = ("run", "events")
    RUN_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    run: str
    events: _containers.RepeatedCompositeFieldContainer[InputEvent]
    def __init__(self, run: _Optional[str] = ..., events: _Optional[_Iterable[_Union[InputEvent, _Mapping]]] = ...) -> None: ...

class ForwardInputResponse(_message.Message):
    __slots__ = ("expire_time",)
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    expire_time: _timestamp_pb2.Timestamp
    def __init__(self, expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class InputEvent(_message.Message):
    __slots__ = ("mouse", "key", "wheel", "text", "navigate")
    MOUSE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    WHEEL_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    NAVIGATE_FIELD_NUMBER: _ClassVar[int]
    mouse: MouseInput
    key: KeyInput
    wheel: WheelInput
    text: TextInput
    navigate: NavigateInput
    def __init__(self, mouse: _Optional[_Union[MouseInput, _Mapping]] = ..., key: _Optional[_Union[KeyInput, _Mapping]] = ..., wheel: _Optional[_Union[WheelInput, _Mapping]] = ..., text: _Optional[_Union[TextInput, _Mapping]] = ..., navigate: _Optional[_Union[NavigateInput, _Mapping]] = ...) -> None: ...

class MouseInput(_message.Message):
    __slots__ = ("action", "x", "y", "button", "click_count", "modifiers")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    CLICK_COUNT_FIELD_NUMBER: _ClassVar[int]
    MODIFIERS_FIELD_NUMBER: _ClassVar[int]
    action: MouseAction
    x: float
    y: float
    button: MouseButton
    click_count: int
    modifiers: int
    def __init__(self, action: _Optional[_Union[MouseAction, str]] = ..., x: _Optional[float] = ..., y: _Optional[float] = ..., button: _Optional[_Union[MouseButton, str]] = ..., click_count: _Optional[int] = ..., modifiers: _Optional[int] = ...) -> None: ...

class KeyInput(_message.Message):
    __slots__ = ("action", "key", "code", "modifiers")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    MODIFIERS_FIELD_NUMBER: _ClassVar[int]
    action: KeyAction
    key: str
    code: str
    modifiers: int
    def __init__(self, action: _Optional[_Union[KeyAction, str]] = ..., key: _Optional[str] = ..., code: _Optional[str] = ..., modifiers: _Optional[int] = ...) -> None: ...

class WheelInput(_message.Message):
    __slots__ = ("x", "y", "delta_x", "delta_y", "modifiers")
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    DELTA_X_FIELD_NUMBER: _ClassVar[int]
    DELTA_Y_FIELD_NUMBER: _ClassVar[int]
    MODIFIERS_FIELD_NUMBER: _ClassVar[int]
    x: float
    y: float
    delta_x: float
    delta_y: float
    modifiers: int
    def __init__(self, x: _Optional[float] = ..., y: _Optional[float] = ..., delta_x: _Optional[float] = ..., delta_y: _Optional[float] = ..., modifiers: _Optional[int] = ...) -> None: ...

class TextInput(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class NavigateInput(_message.Message):
    __slots__ = ("action", "url")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    action: NavigateAction
    url: str
    def __init__(self, action: _Optional[_Union[NavigateAction, str]] = ..., url: _Optional[str] = ...) -> None: ...

class HandBackRequest(_message.Message):
    __slots__ = ("run", "takeover", "note")
    RUN_FIELD_NUMBER: _ClassVar[int]
    TAKEOVER_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    run: str
    takeover: str
    note: str
    def __init__(self, run: _Optional[str] = ..., takeover: _Optional[str] = ..., note: _Optional[str] = ...) -> None: ...

class HandBackResponse(_message.Message):
    __slots__ = ("takeover",)
    TAKEOVER_FIELD_NUMBER: _ClassVar[int]
    takeover: _interaction_pb2.Interaction
    def __init__(self, takeover: _Optional[_Union[_interaction_pb2.Interaction, _Mapping]] = ...) -> None: ...

class DeclineTakeoverRequest(_message.Message):
    __slots__ = ("run", "takeover", "reason")
    RUN_FIELD_NUMBER: _ClassVar[int]
    TAKEOVER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    run: str
    takeover: str
    reason: str
    def __init__(self, run: _Optional[str] = ..., takeover: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DeclineTakeoverResponse(_message.Message):
    __slots__ = ("takeover",)
    TAKEOVER_FIELD_NUMBER: _ClassVar[int]
    takeover: _interaction_pb2.Interaction
    def __init__(self, takeover: _Optional[_Union[_interaction_pb2.Interaction, _Mapping]] = ...) -> None: ...
