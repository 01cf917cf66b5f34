"""Log lines pass the redactors of the live runs: whatever logs while a run is active (our code,
a library, a traceback) cannot print that run's secrets, in any encoding the redactor knows."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from outrider.server.core.secrets.redaction import Redactor


class SecretLogFilter(logging.Filter):
    """Attached to the root logger's handlers while a server runs; rewrites records in place."""

    def __init__(self, redactors: Callable[[], Sequence[Redactor]]) -> None:
        super().__init__()
        self._redactors = redactors

    def filter(self, record: logging.LogRecord) -> bool:
        redactors = [r for r in self._redactors() if r]
        if not redactors:
            return True

        def redact(text: str) -> str:
            for redactor in redactors:
                text = redactor.text(text)
            return text

        try:
            record.msg, record.args = redact(record.getMessage()), None
        except (TypeError, ValueError):
            return True  # a malformed record: logging reports it itself
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True

    def attach(self) -> None:
        for handler in logging.getLogger().handlers:
            handler.addFilter(self)

    def detach(self) -> None:
        for handler in logging.getLogger().handlers:
            handler.removeFilter(self)
