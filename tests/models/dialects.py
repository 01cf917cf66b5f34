"""Per provider: its model spec against a fake server, reply bodies in its protocol, and readers
of what the fake server received."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from outrider.server.settings.providers import ProviderSettings
from tests.models.fake_providers import (
    FakeProvider,
    anthropic_body,
    gemini_body,
    openai_body,
)

FAST = {"timeout": 1.0, "max_retries": 2, "retry_base_delay": 0.01, "retry_max_delay": 0.5}


@dataclass(frozen=True)
class Dialect:
    provider: str
    spec: Callable[[FakeProvider], str]
    settings: Callable[[FakeProvider], dict[str, Any]]
    text: Callable[[str], dict[str, Any]]
    call: Callable[[str, dict[str, Any]], dict[str, Any]]
    malformed: Callable[[str], dict[str, Any]]  # a broken call of the named tool
    structured: Callable[[dict[str, Any]], dict[str, Any]]
    schema_in: Callable[[dict[str, Any]], dict[str, Any] | None]
    tools_in: Callable[[dict[str, Any]], list[str]]
    images_in: Callable[[dict[str, Any]], list[str]]  # base64 data of image parts
    tool_results_in: Callable[[dict[str, Any]], list[str]]
    # several calls in one reply, with (prompt, output) usage and (read, written) cache tokens
    calls: Callable[[list[tuple[str, dict[str, Any]]], tuple[int, int], tuple[int, int]], Any]

    def provider_settings(self, fake: FakeProvider, **overrides: Any) -> ProviderSettings:
        return ProviderSettings(**(FAST | self.settings(fake) | overrides))


def _walk(value: Any) -> list[Any]:
    """Every dict nested in a JSON value."""
    if isinstance(value, dict):
        return [value, *(d for v in value.values() for d in _walk(v))]
    if isinstance(value, list):
        return [d for v in value for d in _walk(v)]
    return []


# OpenAI-compatible --------------------------------------------------------------------------


def _openai_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = body.get("response_format")
    return fmt["json_schema"]["schema"] if fmt else None


OPENAI = Dialect(
    provider="openai-compatible",
    spec=lambda fake: f"openai-compatible:fake-model@{fake.url}/v1",
    settings=lambda fake: {},
    text=lambda text: openai_body(text, usage=(21, 4)),
    call=lambda name, args: openai_body(None, [(name, json.dumps(args))], usage=(33, 7)),
    malformed=lambda name: openai_body(None, [(name, '{"ref": "E1"')]),
    structured=lambda data: openai_body(json.dumps(data)),
    schema_in=_openai_schema,
    tools_in=lambda body: [t["function"]["name"] for t in body.get("tools", [])],
    images_in=lambda body: [
        d["image_url"]["url"].partition("base64,")[2]
        for d in _walk(body["messages"])
        if d.get("type") == "image_url"
    ],
    tool_results_in=lambda body: [m["content"] for m in body["messages"] if m["role"] == "tool"],
    calls=lambda calls, usage, cache: openai_body(
        None, [(n, json.dumps(a)) for n, a in calls], usage=usage, cache=cache
    ),
)


# Anthropic ----------------------------------------------------------------------------------


def _anthropic_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    if body.get("tool_choice", {}).get("name") != "reply":
        return None
    return next(t["input_schema"] for t in body["tools"] if t["name"] == "reply")


ANTHROPIC = Dialect(
    provider="anthropic",
    spec=lambda fake: "anthropic:claude-fake",
    settings=lambda fake: {"anthropic_api_key": "sk-ant-test", "anthropic_base_url": fake.url},
    text=lambda text: anthropic_body(text, usage=(21, 4)),
    call=lambda name, args: anthropic_body(None, [(name, args)], usage=(33, 7)),
    malformed=lambda name: anthropic_body(None, [(name, '{"ref": "E1"')]),
    structured=lambda data: anthropic_body(None, [("reply", data)]),
    schema_in=_anthropic_schema,
    tools_in=lambda body: [t["name"] for t in body.get("tools", []) if t["name"] != "reply"],
    images_in=lambda body: [
        d["source"]["data"] for d in _walk(body["messages"]) if d.get("type") == "image"
    ],
    tool_results_in=lambda body: [
        c["text"]
        for d in _walk(body["messages"])
        if d.get("type") == "tool_result"
        for c in d["content"]
        if c["type"] == "text"
    ],
    calls=lambda calls, usage, cache: anthropic_body(None, calls, usage=usage, cache=cache),
)


# Gemini -------------------------------------------------------------------------------------


def _gemini_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    config = body.get("generationConfig", {})
    schema = config.get("responseJsonSchema")
    return schema if isinstance(schema, dict) else None


GEMINI = Dialect(
    provider="gemini",
    spec=lambda fake: "gemini:gemini-fake",
    settings=lambda fake: {"gemini_api_key": "gm-test", "gemini_base_url": fake.url},
    text=lambda text: gemini_body(text, usage=(21, 4)),
    call=lambda name, args: gemini_body(None, [(name, args)], usage=(33, 7)),
    malformed=lambda name: gemini_body(
        None,
        finish="MALFORMED_FUNCTION_CALL",
        finish_message=f'Malformed function call: print(default_api.{name}(ref="E1"',
    ),
    structured=lambda data: gemini_body(json.dumps(data)),
    schema_in=_gemini_schema,
    tools_in=lambda body: [
        f["name"] for t in body.get("tools", []) for f in t.get("functionDeclarations", [])
    ],
    images_in=lambda body: [
        d["inlineData"]["data"] for d in _walk(body["contents"]) if "inlineData" in d
    ],
    tool_results_in=lambda body: [
        d["functionResponse"]["response"]["result"]
        for d in _walk(body["contents"])
        if "functionResponse" in d
    ],
    calls=lambda calls, usage, cache: gemini_body(None, calls, usage=usage, cache=cache),
)

DIALECTS = [OPENAI, ANTHROPIC, GEMINI]
