"""Model calls through RunModels are measured on every provider's real SDK: latency by outcome,
tokens by direction, and estimated cost when the model has a price."""

from __future__ import annotations

import pytest

from outrider.server.models.base import Message, ModelError, ModelRequest
from outrider.server.models.registry import RunModels
from outrider.server.settings.providers import Price
from outrider.server.telemetry.metrics import REGISTRY
from tests.models.dialects import Dialect
from tests.models.fake_providers import Answer, FakeProvider, error_body

PRICE = Price(input=3.0, output=15.0)


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_calls_tokens_and_cost_are_counted_per_provider_and_model(
    dialect: Dialect, fake: FakeProvider
) -> None:
    spec = dialect.spec(fake)
    labels = {"provider": spec.partition(":")[0], "model": spec.split(":", 1)[1].split("@")[0]}
    calls = {o: {**labels, "role": "actor", "outcome": o} for o in ("ok", "error")}
    before = {
        "ok": sample("outrider_model_call_duration_seconds_count", **calls["ok"]),
        "error": sample("outrider_model_call_duration_seconds_count", **calls["error"]),
        "input": sample("outrider_model_tokens_total", direction="input", **labels),
        "output": sample("outrider_model_tokens_total", direction="output", **labels),
        "cost": sample("outrider_model_cost_usd_total", **labels),
    }
    # generous timeout, no retries: each call takes exactly one queued answer, even under load
    settings = dialect.provider_settings(fake, prices={spec: PRICE}, timeout=30, max_retries=0)
    models = RunModels(spec, {}, "", settings)
    chat = models.for_role("actor")
    fake.queue = [dialect.text("Hello."), Answer(error_body(401, "bad key"), status=401)]
    request = ModelRequest(messages=(Message("user", "Hi"),), role="actor")
    try:
        reply = await chat.generate(request)
        with pytest.raises(ModelError):
            await chat.generate(request)
    finally:
        await models.aclose()
    used = reply.usage
    assert used.input_tokens > 0 and used.output_tokens > 0
    after = sample("outrider_model_call_duration_seconds_count", **calls["ok"])
    assert after == before["ok"] + 1
    after = sample("outrider_model_call_duration_seconds_count", **calls["error"])
    assert after == before["error"] + 1
    inputs = sample("outrider_model_tokens_total", direction="input", **labels)
    assert inputs == before["input"] + used.input_tokens
    outputs = sample("outrider_model_tokens_total", direction="output", **labels)
    assert outputs == before["output"] + used.output_tokens
    cost = (used.input_tokens * PRICE.input + used.output_tokens * PRICE.output) / 1_000_000
    assert sample("outrider_model_cost_usd_total", **labels) == pytest.approx(before["cost"] + cost)
