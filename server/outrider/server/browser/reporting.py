"""Emits the run's automate events (stamped with epoch-millisecond times) and keeps the counts the
metrics events report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from google.protobuf.message import Message

from outrider.server.core.clock import epoch_ms, now_us
from outrider.server.core.runs.agent import RunContext
from outrider.server.models.base import Usage
from outrider.server.models.pricing import estimated_cost
from outrider.server.settings.providers import Price
from outrider.v1 import automate_events_pb2 as ae


@dataclass
class Tally:
    ai_generations: int = 0
    ai_errors: int = 0
    usage: Usage = field(default_factory=Usage)  # of every model call so far
    steps: int = 0
    actions: int = 0
    by_model: dict[str, Usage] = field(default_factory=dict)

    def add_usage(self, model: str, usage: Usage) -> None:
        self.ai_generations += 1
        self.usage += usage
        self.by_model[model] = self.by_model.get(model, Usage()) + usage


class Reporter:
    def __init__(self, ctx: RunContext, prices: Mapping[str, Price]) -> None:
        self.ctx = ctx
        self.tally = Tally()
        self.prices = prices

    def model_call(self, model: str, usage: Usage) -> None:
        """Counts one model call: in the metrics events and in the run's record (Run.usage)."""
        self.tally.add_usage(model, usage)
        cost = estimated_cost(self.prices, model, usage)
        self.ctx.count_usage(usage.input_tokens, usage.output_tokens, cost)

    def model_usage(self) -> dict[str, ae.ModelUsage]:
        usage = {}
        for model, used in self.tally.by_model.items():
            entry = ae.ModelUsage(
                input_tokens=used.input_tokens,
                output_tokens=used.output_tokens,
                cached_input_tokens=used.cached_input_tokens,
                cache_write_input_tokens=used.cache_write_tokens,
            )
            cost = estimated_cost(self.prices, model, used)
            if cost is not None:
                entry.estimated_cost_usd = cost
            usage[model] = entry
        return usage

    def emit(self, arm: str, payload: Message, artifact: str = "") -> None:
        if "timestamp" in payload.DESCRIPTOR.fields_by_name:
            setattr(payload, "timestamp", epoch_ms(now_us()))  # noqa: B010 - any payload type
        event = ae.AutomateEvent()
        getattr(event, arm).CopyFrom(payload)
        self.ctx.emit(event, artifact)

    def status(self, iteration_id: str, message: str) -> None:
        self.emit("agent_status", ae.AgentStatus(iteration_id=iteration_id, message=message))

    def metrics(self, iteration_id: str, final: bool) -> None:
        tally = self.tally
        fields = dict(
            ai_generation_count=tally.ai_generations,
            ai_generation_error_count=tally.ai_errors,
            event_counts=dict(self.ctx.seen),
            iteration_id=iteration_id,
            step_count=tally.steps,
            total_input_tokens=tally.usage.input_tokens,
            total_output_tokens=tally.usage.output_tokens,
            model_usage=self.model_usage(),
            total_cached_input_tokens=tally.usage.cached_input_tokens,
            total_cache_write_input_tokens=tally.usage.cache_write_tokens,
        )
        if final:
            self.emit("task_metrics", ae.TaskMetrics(**fields))  # type: ignore[arg-type]
        else:
            self.emit("task_metrics_incremental", ae.TaskMetricsIncremental(**fields))  # type: ignore[arg-type]
