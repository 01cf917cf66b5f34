"""The OpenAPI paths and schemas of the profile and credential resources (see vault_routes.py),
built with openapi.py's operation helper, which it passes in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from outrider.server.rest_edge.enums import enum_choices
from outrider.v1 import profile_pb2

Operation = Callable[..., dict[str, Any]]
_VAULT_ID = {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,62}$"}
_OBJECT = {"type": "object"}
_STRINGS = {"type": "array", "items": {"type": "string"}}


def _json(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _OBJECT}}}


def _id(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": _VAULT_ID}


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema}


_OPERATION_IDS = {
    ("/v1/profiles", "get"): "listProfiles",
    ("/v1/profiles", "post"): "createProfile",
    ("/v1/profiles/{profileId}", "get"): "getProfile",
    ("/v1/profiles/{profileId}", "delete"): "deleteProfile",
    ("/v1/profiles/{profileId}/login", "post"): "startProfileLogin",
    ("/v1/credentials", "get"): "listCredentials",
    ("/v1/credentials/{credentialId}", "get"): "getCredential",
    ("/v1/credentials/{credentialId}", "put"): "setCredential",
    ("/v1/credentials/{credentialId}", "delete"): "deleteCredential",
    ("/v1/credential-uses", "get"): "listCredentialUses",
}


def vault_paths(operation: Operation) -> dict[str, Any]:
    """Every operation of the vault's resources, each with its operationId."""
    paths = _paths(operation)
    for (path, method), operation_id in _OPERATION_IDS.items():
        paths[path][method]["operationId"] = operation_id
    return paths


def _paths(operation: Operation) -> dict[str, Any]:
    page = [
        _query("pageSize", {"type": "integer", "minimum": 0, "maximum": 1000}),
        _query("pageToken", {"type": "string"}),
    ]
    gone = {"204": {"description": "deleted"}}
    profile, credential = [_id("profileId")], [_id("credentialId")]
    uses = [*page, _query("credential", {"type": "string"}), _query("run", {"type": "string"})]
    return {
        "/v1/profiles": {
            "get": operation("List the tenant's profiles (metadata)", {"200": _json("a page")},
                             parameters=page),
            "post": operation("Create an empty profile", {"201": _json("the profile")},
                              "CreateProfileRequest"),
        },
        "/v1/profiles/{profileId}": {
            "get": operation("A profile's metadata", {"200": _json("the profile")},
                             parameters=profile),
            "delete": operation("Delete a profile and its state", gone, parameters=profile),
        },
        "/v1/profiles/{profileId}/login": {
            "post": operation(
                "Open a browser with no agent for a person to log in; the state is saved",
                {"201": _json("the by-hand run")}, "ProfileLoginRequest", profile,
            )
        },
        "/v1/credentials": {
            "get": operation("List the tenant's credentials (never values)",
                             {"200": _json("a page")}, parameters=page),
        },
        "/v1/credentials/{credentialId}": {
            "get": operation("A credential's metadata (never values)",
                             {"200": _json("the credential")}, parameters=credential),
            "put": operation(
                "Create or replace a credential (write-only)",
                {"200": _json("replaced"), "201": _json("created")}, "SetCredentialRequest",
                credential,
            ),
            "delete": operation("Delete a credential (its audit trail stays)", gone,
                                parameters=credential),
        },
        "/v1/credential-uses": {
            "get": operation("The audit trail of credential uses, newest first",
                             {"200": _json("a page")}, parameters=uses),
        },
    }  # fmt: skip


def vault_schemas() -> dict[str, Any]:
    check = {
        "type": "object",
        "properties": {"url": {"type": "string"}, "text": {"type": "string"}},
    }
    return {
        "CreateProfileRequest": {"type": "object", "required": ["profileId"], "properties": {
            "profileId": _VAULT_ID, "check": check}},
        "ProfileLoginRequest": {"type": "object", "properties": {
            "url": {"type": "string"}, "allowedDomains": _STRINGS}},
        "SetCredentialRequest": {"type": "object", "required": ["origins"], "properties": {
            "origins": _STRINGS, "username": {"type": "string"},
            "password": {"type": "string", "writeOnly": True},
            "totpSeed": {"type": "string", "writeOnly": True}}},
    }  # fmt: skip


def vault_options() -> dict[str, Any]:
    """The run options that name profiles and credentials (RunOptions)."""
    return {
        "profile": {"type": "string", "description": "profiles/{id}: start from its state."},
        "profileSave": {
            "type": "string",
            "enum": enum_choices(profile_pb2.ProfileSave.DESCRIPTOR),
            "description": "Write the browser state back to the profile (in a "
            "session: to the one it was created from).",
        },
        "credentials": {**_STRINGS, "description": "credentials/{id} the run may fill."},
    }
