"""The seed's `error` event data for a stream that fails after it began."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from outrider.server.core import clock
from outrider.server.rest_edge.wire import to_json
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import research_events_pb2 as re_pb
from outrider.v1 import run_pb2


def error_event(kind: int, message: str, code: str = "INTERNAL") -> Any:
    """Automate: {"error": {code, message, timestamp}, "success": false};
    research: {"error": {message, name}, "message", "timestamp"}."""
    if kind == run_pb2.RUN_KIND_RESEARCH:
        return to_json(
            re_pb.ResearchError(
                error=re_pb.ResearchErrorDetail(message=message, name=code),
                message=message,
                timestamp=clock.epoch_ms(clock.now_us()),
            )
        )
    iso = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return to_json(
        ae.AutomateError(
            error=ae.AutomateErrorDetail(code=code, message=message, timestamp=iso),
            success=False,
        )
    )
