"""Anthropic messages on the official `anthropic` SDK: tools as tools, output schemas as one
forced `reply` tool whose input is the structured answer, images as base64 image blocks."""

from __future__ import annotations

from typing import Any

import anthropic

from outrider.server.models.base import (
    FinishReason,
    Message,
    ModelReply,
    ModelRequest,
    ToolCall,
    Usage,
)
from outrider.server.models.resilience import (
    Failure,
    RetryPolicy,
    error_detail,
    is_retryable_status,
    retry_after,
    with_retries,
)
from outrider.server.models.wire import b64, tool_arguments

REPLY_TOOL = "reply"
_FINISH: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "tool_use": "tool-calls",
    "refusal": "content-filter",
}


class AnthropicModel:
    def __init__(
        self,
        name: str,
        model: str,
        api_key: str,
        base_url: str | None,
        policy: RetryPolicy,
        max_tokens: int,
    ) -> None:
        self.name = name
        self._model = model
        self._policy = policy
        self._max_tokens = max_tokens
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url or None, timeout=policy.timeout, max_retries=0
        )

    async def aclose(self) -> None:
        await self._client.close()

    async def generate(self, request: ModelRequest) -> ModelReply:
        kwargs: dict[str, Any] = {
            "model": self._model,
            "max_tokens": self._max_tokens,
            "messages": to_messages(request.messages, request.cache_points),
        }
        system = system_blocks(request.messages, request.cache_points)
        if system:
            kwargs["system"] = system
        tools = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
        if request.output_schema is not None:
            tools.append(
                {
                    "name": REPLY_TOOL,
                    "description": "Give your answer as this tool's input.",
                    "input_schema": request.output_schema,
                }
            )
            kwargs["tool_choice"] = {"type": "tool", "name": REPLY_TOOL}
        elif request.one_tool_call and tools:
            kwargs["tool_choice"] = {"type": "auto", "disable_parallel_tool_use": True}
        if tools:
            kwargs["tools"] = tools
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature

        async def attempt() -> Any:
            return await self._client.messages.create(**kwargs)

        message = await with_retries(self.name, self._policy, attempt, classify)
        return to_reply(message, request, self.name)


def system_blocks(
    messages: tuple[Message, ...], cache_points: tuple[int, ...] = ()
) -> list[dict[str, Any]]:
    """One text block per system message. A cache point on one caches the tools and the system
    blocks up to it (Anthropic's prefix order is tools, system, messages)."""
    return [
        _cached({"type": "text", "text": m.text}, index in cache_points)
        for index, m in enumerate(messages)
        if m.role == "system" and m.text
    ]


def to_messages(
    messages: tuple[Message, ...], cache_points: tuple[int, ...] = ()
) -> list[dict[str, Any]]:
    """Anthropic turns: tool results are user blocks, and consecutive same-role turns merge. The
    last block of a message at a cache point carries a cache breakpoint."""
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        blocks[-1] = _cached(blocks[-1], index in cache_points)
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def _cached(block: dict[str, Any], breakpoint: bool) -> dict[str, Any]:
    return {**block, "cache_control": {"type": "ephemeral"}} if breakpoint else block


def _blocks(message: Message) -> list[dict[str, Any]]:
    images = [
        {"type": "image", "source": {"type": "base64", "media_type": i.media_type, "data": b64(i)}}
        for i in message.images
    ]
    text = [{"type": "text", "text": message.text}] if message.text else []
    if message.role == "tool":
        return [
            {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": [*text, *images] or [{"type": "text", "text": "(no output)"}],
            }
        ]
    calls = [
        {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
        for c in message.tool_calls
    ]
    return [*images, *text, *calls]


def to_reply(message: Any, request: ModelRequest, name: str) -> ModelReply:
    texts: list[str] = []
    calls: list[ToolCall] = []
    data: Any = None
    for block in message.content:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "tool_use":
            arguments = tool_arguments(block.input)
            if request.output_schema is not None and block.name == REPLY_TOOL:
                data = arguments
            else:
                calls.append(ToolCall(block.id, block.name, arguments))
    finish = _FINISH.get(message.stop_reason or "", "other")
    if data is not None and finish == "tool-calls":
        finish = "stop"  # the forced reply tool is the answer, not an action
    return ModelReply(
        text="".join(texts),
        tool_calls=tuple(calls),
        usage=_usage(message.usage),
        finish_reason=finish,
        model=name,
        data=data,
    )


def _usage(usage: Any) -> Usage:
    """Anthropic's input_tokens leaves out the tokens read from and written to the cache; ours
    counts every prompt token (as the other providers and the GenAI conventions do)."""
    if usage is None:
        return Usage()
    read = getattr(usage, "cache_read_input_tokens", None) or 0
    written = getattr(usage, "cache_creation_input_tokens", None) or 0
    prompt = (usage.input_tokens or 0) + read + written
    return Usage(prompt, usage.output_tokens or 0, read, written)


def classify(error: Exception) -> Failure | None:
    if isinstance(error, anthropic.APITimeoutError):
        return Failure("the request timed out", retryable=True)
    if isinstance(error, anthropic.APIConnectionError):
        return Failure(f"connection failed: {error}", retryable=True)
    if isinstance(error, anthropic.APIStatusError):
        status = error.status_code
        return Failure(
            f"HTTP {status}: {error_detail(error.body, error.message)}",
            retryable=is_retryable_status(status) or status == 529,
            retry_after=retry_after(error.response.headers),
        )
    if isinstance(error, anthropic.AnthropicError):
        return Failure(str(error), retryable=False)
    return None
