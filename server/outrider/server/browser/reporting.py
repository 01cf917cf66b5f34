"""Emits the run's automate events (stamped with epoch-millisecond times) and keeps the counts the
metrics events report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from google.protobuf.message import Message

from outrider.server.core.agent import RunContext
from outrider.server.core.clock import epoch_ms, now_us
from outrider.server.models.base import Usage
from outrider.server.models.pricing import Price, estimated_cost
from outrider.v1 import automate_events_pb2 as ae


@dataclass
class Tally:
    ai_generations: int = 0
    ai_errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    steps: int = 0
    actions: int = 0
    by_model: dict[str, list[int]] = field(default_factory=dict)  # model -> [input, output]

    def add_usage(self, model: str, usage: Usage) -> None:
        self.ai_generations += 1
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        counts = self.by_model.setdefault(model, [0, 0])
        counts[0] += usage.input_tokens
        counts[1] += usage.output_tokens


class Reporter:
    def __init__(self, ctx: RunContext, prices: Mapping[str, Price]) -> None:
        self.ctx = ctx
        self.tally = Tally()
        self.prices = prices

    def model_usage(self) -> dict[str, ae.ModelUsage]:
        usage = {}
        for model, (tokens_in, tokens_out) in self.tally.by_model.items():
            entry = ae.ModelUsage(input_tokens=tokens_in, output_tokens=tokens_out)
            cost = estimated_cost(self.prices, model, tokens_in, tokens_out)
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
            total_input_tokens=tally.input_tokens,
            total_output_tokens=tally.output_tokens,
            model_usage=self.model_usage(),
        )
        if final:
            self.emit("task_metrics", ae.TaskMetrics(**fields))  # type: ignore[arg-type]
        else:
            self.emit("task_metrics_incremental", ae.TaskMetricsIncremental(**fields))  # type: ignore[arg-type]
