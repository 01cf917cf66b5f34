"""Helpers shared by the provider adapters: tool-call arguments and JSON replies."""

from __future__ import annotations

import base64
import json
from typing import Any

from outrider.server.models.base import ImagePart

INVALID_ARGUMENTS = "invalid_json_arguments"
"""The one key of a ToolCall's arguments when the provider sent arguments that are not a JSON
object; its value is the raw text. The browser agent's call check then reports the call as
invalid (the arguments did not parse, and how they began: browser/tools.py) in a
task:validation_error whose raw_response carries the raw text, and tells the model to call again.
"""


def tool_arguments(raw: Any) -> dict[str, Any]:
    """A provider's tool-call arguments (a JSON text or an already-parsed value) as a dict."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {INVALID_ARGUMENTS: raw}
        if isinstance(parsed, dict):
            return parsed
    return {INVALID_ARGUMENTS: raw if isinstance(raw, str) else json.dumps(raw)}


def json_reply(text: str) -> Any:
    """The parsed JSON of a structured reply, or None when the text is not JSON (callers then
    report the reply as invalid and ask again)."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def data_url(image: ImagePart) -> str:
    return f"data:{image.media_type};base64,{base64.b64encode(image.data).decode()}"


def b64(image: ImagePart) -> str:
    return base64.b64encode(image.data).decode()
