"""Any ChatModel, observed: a CLIENT span per call with the OpenTelemetry GenAI semantic
conventions, and latency, token and estimated-cost metrics by provider and model."""

from __future__ import annotations

import time
from collections.abc import Mapping

from opentelemetry.trace import SpanKind

from outrider.server.models.base import ChatModel, ModelReply, ModelRequest
from outrider.server.models.pricing import estimated_cost
from outrider.server.settings.providers import Price
from outrider.server.telemetry import metrics, tracing


def provider_and_model(spec: str) -> tuple[str, str]:
    """("openai", "gpt-4.1-mini") from "openai:gpt-4.1-mini"; base URLs are dropped."""
    provider, _, model = spec.partition(":")
    return provider, model.partition("@")[0]


class ObservedModel:
    def __init__(self, model: ChatModel, prices: Mapping[str, Price]) -> None:
        self.name = model.name
        self._model = model
        self._prices = prices
        self._provider, self._model_name = provider_and_model(model.name)

    async def aclose(self) -> None:
        await self._model.aclose()

    async def generate(self, request: ModelRequest) -> ModelReply:
        attributes: dict[str, str | float] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": self._provider,
            "gen_ai.system": self._provider,
            "gen_ai.request.model": self._model_name,
            "outrider.model.role": request.role,
        }
        if request.temperature is not None:
            attributes["gen_ai.request.temperature"] = request.temperature
        started = time.perf_counter()
        ok = False
        with tracing.span(f"chat {self._model_name}", attributes, SpanKind.CLIENT) as span:
            try:
                reply = await self._model.generate(request)
                ok = True
            except Exception as error:
                span.set_attribute("error.type", type(error).__name__)
                raise
            finally:
                seconds = time.perf_counter() - started
                metrics.model_call(self._provider, self._model_name, request.role, ok, seconds)
            span.set_attributes(
                {
                    "gen_ai.response.model": reply.model or self._model_name,
                    "gen_ai.usage.input_tokens": reply.usage.input_tokens,
                    "gen_ai.usage.output_tokens": reply.usage.output_tokens,
                    "gen_ai.usage.cache_read.input_tokens": reply.usage.cached_input_tokens,
                    "gen_ai.usage.cache_creation.input_tokens": reply.usage.cache_write_tokens,
                    "gen_ai.response.finish_reasons": [reply.finish_reason],
                }
            )
        self._count_usage(reply)
        return reply

    def _count_usage(self, reply: ModelReply) -> None:
        cost = estimated_cost(self._prices, self.name, reply.usage)
        metrics.model_usage(self._provider, self._model_name, reply.usage, cost)
