"""Estimated cost of model usage from a configured price table (US dollars per million tokens).

OUTRIDER_PROVIDER_PRICES='{"openai:gpt-4.1-mini": {"input": 0.4, "output": 1.6}}' — a key is a
model spec or a bare model name; models without a price get no estimate (never a made-up one).

Prompt-cache tokens are priced as the provider bills them: `cached_input` per million tokens read
from the cache and `cache_write` per million written to it, when the table names them; else from
the provider's published ratio to the input price. Anthropic bills every Claude model alike
(reads 0.1x, five-minute writes 1.25x). OpenAI's and Gemini's read discount depends on the model
(OpenAI 0.5x for the GPT-4o family, 0.25x for GPT-4.1, 0.1x for GPT-5; Gemini 0.25x for 2.5):
the smallest discount is assumed, so an estimate without `cached_input` is never below the bill.
Servers behind openai-compatible report what they like and get no discount.
"""

from __future__ import annotations

from collections.abc import Mapping

from outrider.server.models.base import Usage
from outrider.server.settings.providers import Price


def price_of(prices: Mapping[str, Price], model: str) -> Price | None:
    return prices.get(model) or prices.get(model.partition(":")[2])


def estimated_cost(prices: Mapping[str, Price], model: str, usage: Usage) -> float | None:
    price = price_of(prices, model)
    if price is None:
        return None
    read, write = price.cache_prices(model.partition(":")[0])
    dollars = (
        usage.uncached_input_tokens * price.input
        + usage.cached_input_tokens * read
        + usage.cache_write_tokens * write
        + usage.output_tokens * price.output
    )
    return round(dollars / 1_000_000, 6)
