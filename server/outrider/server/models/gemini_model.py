"""Google Gemini on the official `google-genai` SDK: tools as function declarations, output
schemas as JSON response schemas, images as inline-data parts.

Gemini does not send malformed arguments: it ends the reply with MALFORMED_FUNCTION_CALL (the
SDK drops the finish message quoting the broken call on the Gemini API). That becomes a ToolCall
named "malformed_function_call" (or the function the finish message names, when it has one)
whose arguments carry the reason under INVALID_ARGUMENTS; the browser agent refuses it as an
unknown tool in a task:validation_error and asks the model again.
"""

from __future__ import annotations

import re
import secrets

from google import genai
from google.genai import errors, types

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
    is_retryable_status,
    retry_after,
    with_retries,
)
from outrider.server.models.wire import INVALID_ARGUMENTS, json_reply, tool_arguments

_FINISH: dict[str, FinishReason] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content-filter",
    "RECITATION": "content-filter",
    "BLOCKLIST": "content-filter",
    "PROHIBITED_CONTENT": "content-filter",
    "SPII": "content-filter",
    "IMAGE_SAFETY": "content-filter",
    "MALFORMED_FUNCTION_CALL": "error",
}
_CALLED = re.compile(r"(?:default_api\.)?([A-Za-z_]\w*)\s*\(")


class GeminiModel:
    def __init__(
        self, name: str, model: str, api_key: str, base_url: str | None, policy: RetryPolicy
    ) -> None:
        self.name = name
        self._model = model
        self._policy = policy
        options = types.HttpOptions(timeout=int(policy.timeout * 1000))
        if base_url:
            options.base_url = base_url
        self._client = genai.Client(api_key=api_key, http_options=options)

    async def aclose(self) -> None:
        await self._client.aio.aclose()

    async def generate(self, request: ModelRequest) -> ModelReply:
        config = types.GenerateContentConfig(
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
        )
        system = "\n\n".join(m.text for m in request.messages if m.role == "system")
        if system:
            config.system_instruction = system
        if request.tools:
            config.tools = [
                types.Tool(
                    function_declarations=[
                        types.FunctionDeclaration(
                            name=t.name,
                            description=t.description,
                            parameters_json_schema=t.parameters,
                        )
                        for t in request.tools
                    ]
                )
            ]
        if request.output_schema is not None:
            config.response_mime_type = "application/json"
            config.response_json_schema = request.output_schema
        if request.temperature is not None:
            config.temperature = request.temperature
        contents = to_contents(request.messages)

        async def attempt() -> types.GenerateContentResponse:
            return await self._client.aio.models.generate_content(
                model=self._model, contents=contents, config=config
            )

        response = await with_retries(self.name, self._policy, attempt, classify)
        return to_reply(response, request, self.name)


def to_contents(messages: tuple[Message, ...]) -> list[types.Content]:
    """Gemini turns ("user"/"model"); tool results are function responses named by their call."""
    names = {c.id: c.name for m in messages for c in m.tool_calls}
    out: list[types.Content] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "model" if message.role == "assistant" else "user"
        parts = _parts(message, names)
        if not parts:
            continue
        if out and out[-1].role == role and out[-1].parts is not None:
            out[-1].parts.extend(parts)
        else:
            out.append(types.Content(role=role, parts=parts))
    return out


def _parts(message: Message, names: dict[str, str]) -> list[types.Part]:
    parts: list[types.Part] = []
    if message.role == "tool":
        response = types.FunctionResponse(
            id=message.tool_call_id or None,
            name=names.get(message.tool_call_id, "tool"),
            response={"result": message.text},
        )
        parts.append(types.Part(function_response=response))
    elif message.text:
        parts.append(types.Part(text=message.text))
    parts.extend(types.Part.from_bytes(data=i.data, mime_type=i.media_type) for i in message.images)
    parts.extend(
        types.Part(function_call=types.FunctionCall(id=c.id or None, name=c.name, args=c.arguments))
        for c in message.tool_calls
    )
    return parts


def to_reply(
    response: types.GenerateContentResponse, request: ModelRequest, name: str
) -> ModelReply:
    usage = _usage(response.usage_metadata)
    if not response.candidates:
        return ModelReply(finish_reason="content-filter", usage=usage, model=name)
    candidate = response.candidates[0]
    texts: list[str] = []
    calls: list[ToolCall] = []
    parts = candidate.content.parts if candidate.content and candidate.content.parts else []
    reply_id = secrets.token_hex(4)  # Gemini's calls may have no id: ours are unique per run
    for n, part in enumerate(parts):
        if part.function_call is not None and part.function_call.name:
            call = part.function_call
            calls.append(
                ToolCall(
                    call.id or f"call_{reply_id}_{n}",
                    call.name or "",
                    tool_arguments(call.args or {}),
                )
            )
        elif part.text and not part.thought:
            texts.append(part.text)
    reason = candidate.finish_reason.value if candidate.finish_reason else ""
    finish = _FINISH.get(reason, "other")
    if reason == "MALFORMED_FUNCTION_CALL" and not calls:
        calls.append(_malformed_call(candidate.finish_message or ""))
        finish = "tool-calls"
    elif calls and finish == "stop":
        finish = "tool-calls"
    text = "".join(texts)
    return ModelReply(
        text=text,
        tool_calls=tuple(calls),
        usage=usage,
        finish_reason=finish,
        model=name,
        data=json_reply(text) if request.output_schema is not None and text else None,
    )


def _usage(meta: types.GenerateContentResponseUsageMetadata | None) -> Usage:
    """promptTokenCount counts the cached tokens too; cachedContentTokenCount says how many of
    them Gemini read from its cache (implicit caching of repeated prefixes)."""
    if meta is None:
        return Usage()
    output = (meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0)
    return Usage(meta.prompt_token_count or 0, output, meta.cached_content_token_count or 0)


def _malformed_call(message: str) -> ToolCall:
    found = _CALLED.search(message.partition(":")[2] or message)
    return ToolCall(
        "malformed_call",
        found.group(1) if found else "malformed_function_call",
        {INVALID_ARGUMENTS: message or "MALFORMED_FUNCTION_CALL: the function call was malformed"},
    )


def classify(error: Exception) -> Failure | None:
    if isinstance(error, errors.APIError):
        status = int(error.code or 0)
        headers = getattr(error.response, "headers", None)
        return Failure(
            f"HTTP {status}: {error.message or error.status}",
            retryable=is_retryable_status(status),
            retry_after=retry_after(headers),
        )
    module = type(error).__module__
    if module.startswith(("httpx", "httpcore", "aiohttp")) or isinstance(error, OSError):
        kind = "timed out" if "Timeout" in type(error).__name__ else "connection failed"
        return Failure(f"{kind}: {type(error).__name__} {error}", retryable=True)
    return None
