"""Log lines formatted as JSON at the moment they are emitted (so in the emitting task's
context), for in-process tests."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from outrider.server.telemetry.logs import JsonFormatter


class _JsonLines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(JsonFormatter())
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.format(record)))


@contextmanager
def json_log(name: str = "") -> Iterator[list[dict[str, Any]]]:
    """Every line logged under `name` (root by default) during the block, parsed."""
    handler = _JsonLines()
    logger = logging.getLogger(name)
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
