"""Emits research events with their epoch-millisecond timestamps."""

from __future__ import annotations

from google.protobuf.message import Message

from outrider.server.core import clock
from outrider.server.core.runs.agent import RunContext
from outrider.server.research.state import Source
from outrider.v1 import research_events_pb2 as re

MAX_SAMPLES = 10


class Emitter:
    def __init__(self, ctx: RunContext) -> None:
        self._ctx = ctx

    def __call__(self, arm: str, payload: Message) -> None:
        """Stamps `payload` (one arm of ResearchEvent, named `arm`) and appends it to the run."""
        payload.timestamp = clock.epoch_ms(clock.now_us())  # type: ignore[attr-defined]
        event = re.ResearchEvent()
        getattr(event, arm).CopyFrom(payload)
        self._ctx.emit(event)


def sample(source: Source) -> re.PageSample:
    page = re.PageSample(
        domain=source.domain,
        title=source.title,
        url=source.url,
        url_source=source.candidate.url_source,  # type: ignore[arg-type]
    )
    if source.analysis is not None:
        page.relevance = source.analysis.relevance  # type: ignore[assignment]
        page.reliability = source.analysis.reliability  # type: ignore[assignment]
        page.summary = source.analysis.summary
    return page


def samples(sources: list[Source]) -> list[re.PageSample]:
    return [sample(s) for s in sources[:MAX_SAMPLES]]
