"""Log lines as text or one JSON object per line, each with the run, trace and principal it
belongs to.

Context comes from context variables, so it follows asyncio tasks without being passed around:
the run manager sets `RUN_ID` in each run's task, OpenTelemetry keeps the current span, and the
auth layer sets `PRINCIPAL` (with `bind_principal`) once it knows who calls.
"""

from __future__ import annotations

import json
import logging
import sys
from contextvars import ContextVar, Token
from datetime import UTC, datetime
from typing import Any, Literal

from outrider.server.telemetry.tracing import current_ids

LogFormat = Literal["text", "json"]
RUN_ID: ContextVar[str] = ContextVar("outrider_run_id", default="")
PRINCIPAL: ContextVar[str] = ContextVar("outrider_principal", default="")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# LogRecord attributes that are not `extra=` fields (uvicorn's color_message is a duplicate).
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "taskName",
    "color_message",
}
# Libraries that log every request URL at INFO: quiet unless DEBUG is asked for.
_CHATTY = ("httpx", "httpcore")


def bind_principal(principal: str) -> Token[str]:
    """Names the caller in every log line of the current task (and tasks it starts)."""
    return PRINCIPAL.set(principal)


def context_fields() -> dict[str, str]:
    """run_id, trace_id, span_id and principal where known."""
    trace_id, span_id = current_ids()
    fields = {
        "run_id": RUN_ID.get(),
        "trace_id": trace_id,
        "span_id": span_id,
        "principal": PRINCIPAL.get(),
    }
    return {key: value for key, value in fields.items() if value}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, context, `extra=` fields, and
    the exception text when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **context_fields(),
        }
        entry.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """The classic line, with the context appended as key=value."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        context = " ".join(f"{key}={value}" for key, value in context_fields().items())
        return f"{line} [{context}]" if context else line


def configure_logging(level: str, fmt: LogFormat) -> None:
    """Replaces the root logger's handlers with one stderr handler in the chosen format."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    if root.level > logging.DEBUG:
        for name in _CHATTY:
            logging.getLogger(name).setLevel(logging.WARNING)
