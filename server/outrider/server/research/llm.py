"""Model calls of a research run: role -> model, budgets checked, tokens counted per model, and
structured answers validated against their schema."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from outrider.server.models.base import Message, ModelError, ModelReply, ModelRequest
from outrider.server.models.registry import RunModels
from outrider.server.research.budget import Budget, BudgetExhausted
from outrider.server.research.metrics import RunMetrics

T = TypeVar("T", bound=BaseModel)
_FENCED_JSON = re.compile(r"\{.*\}", re.DOTALL)


class ModelFailed(Exception):
    """A model call failed or answered something unusable; the message says which role."""


class Llm:
    def __init__(self, models: RunModels, metrics: RunMetrics, budget: Budget) -> None:
        self._models = models
        self._metrics = metrics
        self._budget = budget

    async def structured(
        self, role: str, asks: str, system: str, user: str, schema: type[T], research: bool = True
    ) -> T:
        """`role` picks the model (planner, analyser, writer, judge); `asks` names the request
        (planner, evaluator, analyser, outliner, writer, judge)."""
        reply = await self._call(role, asks, system, user, schema.model_json_schema(), research)
        data = reply.data if reply.data is not None else _json_in(reply.text)
        try:
            return schema.model_validate(data)
        except ValidationError as error:
            raise ModelFailed(
                f"the {asks} answered an invalid {schema.__name__}: {error}"
            ) from None

    async def text(self, role: str, asks: str, system: str, user: str) -> str:
        reply = await self._call(role, asks, system, user, None, research=False)
        if not reply.text.strip():
            raise ModelFailed(f"the {asks} answered no text")
        return reply.text

    async def _call(
        self,
        role: str,
        asks: str,
        system: str,
        user: str,
        schema: dict[str, Any] | None,
        research: bool,
    ) -> ModelReply:
        seconds = self._check_budget(research)
        model = self._models.for_role(role)
        request = ModelRequest(
            messages=(Message("system", system), Message("user", user)),
            output_schema=schema,
            role=asks,
        )
        try:
            async with asyncio.timeout(seconds):
                reply = await model.generate(request)
        except TimeoutError:
            raise BudgetExhausted("the wall-time budget ran out during a model call") from None
        except ModelError as error:
            raise ModelFailed(f"the {asks} model call failed: {error}") from None
        self._metrics.add_usage(reply.model or model.name, reply.usage)
        return reply

    def _check_budget(self, research: bool) -> float:
        """Seconds the call may take; raises BudgetExhausted when a budget has no room for it."""
        if research:
            stop = self._budget.model_stop()
            if stop is not None:
                raise BudgetExhausted(stop)
            return self._budget.research_time_left()
        self._budget.check_writing()
        return self._budget.time_left()


def _json_in(text: str) -> Any:
    match = _FENCED_JSON.search(text)
    if match is None:
        return None
    try:
        return json.loads(match.group(0))
    except ValueError:
        return None
