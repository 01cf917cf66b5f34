"""Estimated cost of model usage from a configured price table (US dollars per million tokens).

OUTRIDER_PROVIDER_PRICES='{"openai:gpt-4.1-mini": {"input": 0.4, "output": 1.6}}' — a key is a
model spec or a bare model name; models without a price get no estimate (never a made-up one).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field


class Price(BaseModel):
    input: float = Field(ge=0, description="US dollars per million input tokens.")
    output: float = Field(ge=0, description="US dollars per million output tokens.")


def estimated_cost(
    prices: Mapping[str, Price], model: str, input_tokens: int, output_tokens: int
) -> float | None:
    price = prices.get(model) or prices.get(model.partition(":")[2])
    if price is None:
        return None
    return round((input_tokens * price.input + output_tokens * price.output) / 1_000_000, 6)
