"""OpenAI chat completions (api.openai.com or any compatible server: vLLM, Ollama, llama.cpp)
on the official `openai` SDK: tools as functions, output schemas as JSON-schema response formats,
images as data-URL image parts."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import openai

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
from outrider.server.models.wire import data_url, json_reply, tool_arguments

_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content-filter",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
}


class OpenAIChatModel:
    def __init__(
        self, name: str, model: str, api_key: str, base_url: str | None, policy: RetryPolicy
    ) -> None:
        self.name = name
        self._model = model
        self._policy = policy
        # OpenAI routes requests with the same key and prefix to the same cache; other servers
        # may refuse a parameter they do not know.
        self._cache_key = name.startswith("openai:")
        self._client = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url or None,
            timeout=policy.timeout,
            max_retries=0,  # with_retries retries, honouring Retry-After
        )

    async def aclose(self) -> None:
        await self._client.close()

    async def generate(self, request: ModelRequest) -> ModelReply:
        kwargs: dict[str, Any] = {"model": self._model, "messages": to_messages(request.messages)}
        if request.tools:
            kwargs["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    },
                }
                for t in request.tools
            ]
            if request.one_tool_call:
                kwargs["parallel_tool_calls"] = False
        if self._cache_key and request.cache_points:
            kwargs["prompt_cache_key"] = cache_key(request)
        if request.output_schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": _schema_name(request.role),
                    "schema": request.output_schema,
                },
            }
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature

        async def attempt() -> Any:
            return await self._client.chat.completions.create(**kwargs)

        completion = await with_retries(self.name, self._policy, attempt, classify)
        return to_reply(completion, request, self.name)


def _schema_name(role: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "_-" else "_" for c in role)
    return f"{cleaned or 'reply'}_reply"


def to_messages(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            out.append(
                {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.text}
            )
            if message.images:  # tool messages carry no images: show them in a user message
                out.append({"role": "user", "content": _parts("", message)})
        elif message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
            if message.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                    }
                    for call in message.tool_calls
                ]
            out.append(entry)
        elif message.images:
            out.append({"role": message.role, "content": _parts(message.text, message)})
        else:
            out.append({"role": message.role, "content": message.text})
    return out


def _parts(text: str, message: Message) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    parts.extend(
        {"type": "image_url", "image_url": {"url": data_url(image)}} for image in message.images
    )
    return parts


def to_reply(completion: Any, request: ModelRequest, name: str) -> ModelReply:
    if not completion.choices:
        return ModelReply(finish_reason="error", model=name, usage=_usage(completion))
    choice = completion.choices[0]
    message = choice.message
    calls = tuple(
        ToolCall(
            call.id or f"call_{n}", call.function.name, tool_arguments(call.function.arguments)
        )
        for n, call in enumerate(message.tool_calls or ())
        if getattr(call, "function", None) is not None
    )
    text = message.content or ""
    finish = _FINISH.get(choice.finish_reason or "", "other")
    if calls and finish == "stop":  # some compatible servers say "stop" after a tool call
        finish = "tool-calls"
    return ModelReply(
        text=text,
        tool_calls=calls,
        usage=_usage(completion),
        finish_reason=finish,
        model=name,
        data=json_reply(text) if request.output_schema is not None and text else None,
    )


def _usage(completion: Any) -> Usage:
    """prompt_tokens counts the cached ones too; prompt_tokens_details.cached_tokens says how
    many of them were read from the prompt cache (OpenAI caches by itself, for free)."""
    usage = completion.usage
    if usage is None:
        return Usage()
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) or 0
    return Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0, cached)


def cache_key(request: ModelRequest) -> str:
    """The same for every call of a run: a digest of the prefix its calls share (to the second
    cache point, the run's own, when there is one), so a run's calls meet the same cache and
    nothing but the prompt itself goes into the key."""
    points = request.cache_points
    prefix = request.messages[: points[min(1, len(points) - 1)] + 1]
    text = json.dumps(
        [[t.name for t in request.tools], [[m.role, m.text] for m in prefix]], ensure_ascii=False
    )
    return "outrider-" + hashlib.sha256(text.encode()).hexdigest()[:24]


def classify(error: Exception) -> Failure | None:
    if isinstance(error, openai.APITimeoutError):
        return Failure("the request timed out", retryable=True)
    if isinstance(error, openai.APIConnectionError):
        return Failure(f"connection failed: {error}", retryable=True)
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        return Failure(
            f"HTTP {status}: {error_detail(error.body, error.message)}",
            retryable=is_retryable_status(status),
            retry_after=retry_after(error.response.headers),
        )
    if isinstance(error, openai.OpenAIError):
        return Failure(str(error), retryable=False)
    return None
