"""Model calls of a browser run, each reported as ai:generation or ai:generation:error; structured
replies are checked against their schema and sent back with the errors (task:validation_error)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from google.protobuf import json_format, struct_pb2

from outrider.server.browser.generation import to_model_messages
from outrider.server.browser.reporting import Reporter
from outrider.server.core.events.names import by_wire_value
from outrider.server.models.base import Message, ModelError, ModelReply, ModelRequest, Usage
from outrider.server.models.pricing import estimated_cost
from outrider.server.models.registry import RunModels
from outrider.server.models.schema import schema_errors
from outrider.v1 import ai_generation_pb2 as ag
from outrider.v1 import automate_events_pb2 as ae

_FINISH = by_wire_value(ag.FinishReason.DESCRIPTOR)


class StructuredReplyFailed(Exception):
    """The model kept answering outside the schema."""


class ModelCaller:
    def __init__(
        self,
        reporter: Reporter,
        models: RunModels,
        redact: Callable[[str], str],
        retries: int,
        omit_prompts: bool = False,
        pause: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        self._reporter = reporter
        self._pause = pause  # waits while a person has the browser: no model call meanwhile
        self._models = models
        self._redact = redact
        self._retries = retries
        self._omit_prompts = omit_prompts  # RunOptions.omit_prompts: events without prompt bodies

    async def generate(self, request: ModelRequest, iteration_id: str) -> ModelReply:
        """Sends `request`, with every secret the run knows by now redacted, to its role's model."""
        if self._pause is not None:
            await self._pause()
        request = self._redacted(request)
        model = self._models.for_role(request.role)
        try:
            reply = await model.generate(request)
        except ModelError as error:
            self._reporter.tally.ai_errors += 1
            failure = ae.AiGenerationError(
                error=self._redact(str(error)), iteration_id=iteration_id
            )
            if not self._omit_prompts:
                failure.prompt = self._prompt(request)
                failure.schema.CopyFrom(_schema(request))
            self._reporter.emit("ai_generation_error", failure)
            raise
        self._reporter.model_call(model.name, reply.usage)
        generation = self._generation(request, reply, iteration_id)
        self._describe_model(generation, model.name, reply)
        self._reporter.emit("ai_generation", generation)
        return reply

    def _generation(
        self, request: ModelRequest, reply: ModelReply, iteration_id: str
    ) -> ag.AiGeneration:
        answer = Message("assistant", reply.text, tool_calls=reply.tool_calls)
        # Without prompt bodies only the model's own reply is kept of the conversation.
        messages = [answer] if self._omit_prompts else [*request.messages, answer]
        generation = ag.AiGeneration(
            finish_reason=_FINISH.get(reply.finish_reason, ag.FINISH_REASON_OTHER),  # type: ignore[arg-type]
            iteration_id=iteration_id,
            usage=_usage(reply.usage),
            messages=to_model_messages(messages, self._redact),
        )
        if not self._omit_prompts:
            generation.prompt = self._prompt(request)
            generation.schema.CopyFrom(_schema(request))
        if reply.data is not None:
            generation.object.CopyFrom(_value(reply.data))
        if request.temperature is not None:
            generation.temperature = request.temperature
        return generation

    def _redacted(self, request: ModelRequest) -> ModelRequest:
        messages = tuple(
            replace(
                m,
                text=self._redact(m.text),
                tool_calls=tuple(
                    replace(c, arguments=self._redact_json(c.arguments)) for c in m.tool_calls
                ),
            )
            for m in request.messages
        )
        return replace(request, messages=messages)

    def _redact_json(self, value: Any) -> Any:
        if isinstance(value, str):
            return self._redact(value)
        if isinstance(value, dict):
            return {k: self._redact_json(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._redact_json(v) for v in value]
        return value

    def _describe_model(self, generation: ag.AiGeneration, model: str, reply: ModelReply) -> None:
        """Which model answered, its prompt-cache tokens and its estimated cost, under
        provider_metadata["outrider"] (where the Tabstack schema leaves room for them)."""
        about: dict[str, Any] = {"model": model}
        usage = reply.usage
        if usage.cached_input_tokens or usage.cache_write_tokens:
            about["cached_input_tokens"] = usage.cached_input_tokens
            about["cache_write_input_tokens"] = usage.cache_write_tokens
        cost = estimated_cost(self._reporter.prices, model, usage)
        if cost is not None:
            about["estimated_cost_usd"] = cost
        generation.provider_metadata.update({"outrider": about})

    def _prompt(self, request: ModelRequest) -> str:
        users = [m.text for m in request.messages if m.role == "user"]
        return self._redact(users[-1]) if users else ""

    async def structured(self, request: ModelRequest, iteration_id: str) -> dict[str, Any]:
        """A reply matching the output schema, asked again (with the errors) when it doesn't."""
        assert request.output_schema is not None
        for attempt in range(1, self._retries + 2):
            reply = await self.generate(request, iteration_id)
            data = reply.data if reply.data is not None else _parse_json(reply.text)
            errors = (
                ["the reply is not JSON"]
                if data is None
                else schema_errors(request.output_schema, data)
            )
            if not errors:
                return dict(data)
            self._reporter.emit(
                "task_validation_error",
                ae.TaskValidationError(
                    errors=errors,
                    iteration_id=iteration_id,
                    retry_count=attempt,
                    raw_response=_value(data if data is not None else self._redact(reply.text)),
                ),
            )
            note = Message(
                "user",
                f"Your reply was invalid: {'; '.join(errors)}. Reply again "
                "with JSON that matches the schema.",
            )
            request = replace(request, messages=(*request.messages, note))
        raise StructuredReplyFailed(
            f"no valid {request.role} reply after {self._retries + 1} tries"
        )


def _usage(usage: Usage) -> ag.GenerationUsage:
    """The seed's three counts, and the cache's two when the provider cached anything."""
    counts = ag.GenerationUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
    )
    if usage.cached_input_tokens or usage.cache_write_tokens:
        counts.cached_input_tokens = usage.cached_input_tokens
        counts.cache_write_input_tokens = usage.cache_write_tokens
    return counts


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _value(data: Any) -> struct_pb2.Value:
    value = struct_pb2.Value()
    json_format.ParseDict(data, value)
    return value


def _schema(request: ModelRequest) -> struct_pb2.Struct:
    schema = struct_pb2.Struct()
    if request.output_schema is not None:
        schema.update(request.output_schema)
    elif request.tools:
        schema.update(
            {"tools": [{"name": t.name, "parameters": t.parameters} for t in request.tools]}
        )
    return schema
