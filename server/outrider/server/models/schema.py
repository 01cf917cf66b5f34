"""A small JSON-Schema check for model replies: object, required keys, types, enums, items.
Enough for the flat schemas agents ask for; messages are written for the model to fix its reply."""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "number": (int, float),
    "integer": int,
    "boolean": bool,
    "array": list,
    "object": dict,
}


def schema_errors(schema: dict[str, Any], value: Any, path: str = "$") -> list[str]:
    expected = schema.get("type")
    if expected and not _is_type(value, expected):
        return [f"{path} must be a {expected}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path} must be one of {schema['enum']}"]
    if expected == "object":
        return _object_errors(schema, value, path)
    if expected == "array" and "items" in schema:
        return [
            e
            for i, item in enumerate(value)
            for e in schema_errors(schema["items"], item, f"{path}[{i}]")
        ]
    return []


def _object_errors(schema: dict[str, Any], value: dict[str, Any], path: str) -> list[str]:
    errors = [f"{path}.{key} is required" for key in schema.get("required", []) if key not in value]
    if schema.get("additionalProperties") is False:
        known = schema.get("properties", {})
        errors.extend(f"{path}.{key} is not an argument" for key in value if key not in known)
    for key, sub in schema.get("properties", {}).items():
        if key in value:
            errors.extend(schema_errors(sub, value[key], f"{path}.{key}"))
    return errors


def _is_type(value: Any, expected: str) -> bool:
    if isinstance(value, bool) and expected != "boolean":
        return False
    return isinstance(value, _TYPES[expected])
