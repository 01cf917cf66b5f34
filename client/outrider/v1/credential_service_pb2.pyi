from outrider.v1 import credential_pb2 as _credential_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SetCredentialRequest(_message.Message):
    __slots__ = ("name", "origins", "secret")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ORIGINS_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    name: str
    origins: _containers.RepeatedScalarFieldContainer[str]
    secret: _credential_pb2.CredentialSecret
    def __init__(self, name: _Optional[str] = ..., origins: _Optional[_Iterable[str]] = ..., secret: _Optional[_Union[_credential_pb2.CredentialSecret, _Mapping]] = ...) -> None: ...

class SetCredentialResponse(_message.Message):
    __slots__ = ("credential", "created")
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    credential: _credential_pb2.Credential
    created: bool
    def __init__(self, credential: _Optional[_Union[_credential_pb2.Credential, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class GetCredentialRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetCredentialResponse(_message.Message):
    __slots__ = ("credential",)
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    credential: _credential_pb2.Credential
    def __init__(self, credential: _Optional[_Union[_credential_pb2.Credential, _Mapping]] = ...) -> None: ...

class ListCredentialsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListCredentialsResponse(_message.Message):
    __slots__ = ("credentials", "next_page_token")
    CREDENTIALS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    credentials: _containers.RepeatedCompositeFieldContainer[_credential_pb2.Credential]
    next_page_token: str
    def __init__(self, credentials: _Optional[_Iterable[_Union[_credential_pb2.Credential, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class DeleteCredentialRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class DeleteCredentialResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListCredentialUsesRequest(_message.Message):
    __slots__ = ("credential", "run", "page_size", "page_token")
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    RUN_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    credential: str
    run: str
    page_size: int
    page_token: str
    def __init__(self, credential: _Optional[str] = ..., run: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListCredentialUsesResponse(_message.Message):
    __slots__ = ("uses", "next_page_token")
    USES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    uses: _containers.RepeatedCompositeFieldContainer[_credential_pb2.CredentialUse]
    next_page_token: str
    def __init__(self, uses: _Optional[_Iterable[_Union[_credential_pb2.CredentialUse, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
