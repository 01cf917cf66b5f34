"""The tokens of an OpenAI chat-completions request, block by block, counted the way OpenAI's
own guide counts them for the GPT-4o family and its successors (o200k_base): the openai-cookbook
notebook "How to count tokens with tiktoken". A message costs 3 tokens and its role and content;
a function definition costs 7 tokens and its `name:description`, then 3 for its parameters and
3 per parameter with its `name:type:description` (an enum: 3 per value and the value, 3 fewer
for the parameter); the definitions end with 12; every reply is primed with 3. Tool calls in an
assistant message are counted as their name and arguments. No estimate is published for a
structured-output schema: it is counted as its JSON, which overstates it.

OpenAI renders tool definitions far more compactly than their JSON (about 660 tokens for the
browser agent's 21 tools against about 1,480 as JSON). Counting the JSON, as `json_blocks` does,
is an upper bound kept for comparison: it puts every prefix well above the 1,024 tokens from
which OpenAI caches, where the real prompt may sit just above or below."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

Count = Callable[[str], int]
Block = tuple[str, int]  # (the block as the cache compares it, its tokens)

MESSAGE = 3
REPLY_PRIMING = 3
FUNCTION = 7
PARAMETERS = 3
PARAMETER = 3
ENUM = -3
ENUM_VALUE = 3
FUNCTIONS_END = 12


def canonical(block: Any) -> str:
    """A block as the provider compares it: its content, not where a breakpoint sits."""
    if isinstance(block, dict):
        block = {k: v for k, v in block.items() if k != "cache_control"}
    return json.dumps(block, sort_keys=True, ensure_ascii=False)


def _schema(body: dict[str, Any]) -> list[Any]:
    """The structured-output schema, which OpenAI says is a prefix of the system message."""
    schema = body.get("response_format", {}).get("json_schema")
    return [schema] if schema else []


def openai_blocks(body: dict[str, Any], count: Count) -> list[Block]:
    """Tools, the structured-output schema, then messages, as OpenAI counts them."""
    tools = body.get("tools", [])
    blocks = [(canonical(tool), function_tokens(tool["function"], count)) for tool in tools]
    if tools:
        blocks.append(("end of functions", FUNCTIONS_END))
    blocks += [(canonical(s), count(canonical(s))) for s in _schema(body)]
    blocks += [(canonical(m), message_tokens(m, count)) for m in body["messages"]]
    return [*blocks, ("reply priming", REPLY_PRIMING)]


def json_blocks(body: dict[str, Any], count: Count) -> list[Block]:
    """The same blocks, each counted as its JSON: the upper bound."""
    blocks = [*body.get("tools", []), *_schema(body), *body["messages"]]
    return [(canonical(b), count(canonical(b))) for b in blocks]


def function_tokens(function: dict[str, Any], count: Count) -> int:
    tokens = FUNCTION + count(f"{function['name']}:{_sentence(function.get('description'))}")
    properties = function.get("parameters", {}).get("properties", {})
    if properties:
        tokens += PARAMETERS
    for name, spec in properties.items():
        described = f"{name}:{spec.get('type')}:{_sentence(spec.get('description'))}"
        tokens += PARAMETER + count(described)
        if "enum" in spec:
            tokens += ENUM + sum(ENUM_VALUE + count(str(value)) for value in spec["enum"])
    return tokens


def _sentence(text: str | None) -> str:
    """A description as the estimate counts it: without its closing full stop."""
    return (text or "").removesuffix(".")


def message_tokens(message: dict[str, Any], count: Count) -> int:
    content = message.get("content") or ""
    if isinstance(content, list):
        if any(part.get("type") != "text" for part in content):
            raise ValueError("an image part: no published estimate is used for images here")
        content = "".join(part["text"] for part in content)
    tokens = MESSAGE + count(message["role"]) + count(content)
    for call in message.get("tool_calls") or []:
        tokens += count(call["function"]["name"]) + count(call["function"]["arguments"])
    return tokens
