"""The console's HTML: Jinja2 templates with autoescaping on, and the filters they use."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
from google.protobuf.timestamp_pb2 import Timestamp
from starlette.requests import Request
from starlette.responses import HTMLResponse

from outrider.server.console_edge import figures, reasons
from outrider.server.core.principals import Scope, scope_names

TEMPLATES = Path(__file__).with_name("templates")
STATIC = Path(__file__).with_name("static")


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,  # every value is escaped unless a template marks it safe
        undefined=jinja2.StrictUndefined,  # a misspelt name fails the page, not silently empty
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters |= {
        "iso": iso_time,
        "clock": clock_time,
        "shorten": shorten,
        "pretty_json": pretty_json,
        "duration": figures.duration,
        "count": figures.count,
        "cost": figures.cost,
        "ordinal": figures.ordinal,
        "reason": reasons.words,
        "scope_names": scope_names,
    }
    env.globals["scopes"] = {scope.name.lower(): scope.value for scope in Scope}
    return env


class Pages:
    """Renders templates into responses; `base` is the console's root path (e.g. /console)."""

    def __init__(self) -> None:
        self._env = environment()

    def render(self, template: str, /, **context: Any) -> str:
        return self._env.get_template(template).render(**context)

    def page(
        self, request: Request, template: str, code: int = 200, /, **context: Any
    ) -> HTMLResponse:
        html = self.render(template, base=base_of(request), **context)
        return HTMLResponse(html, code)


def base_of(request: Request) -> str:
    """Where the console is mounted, for its links (its pages never assume /console)."""
    return str(request.scope.get("root_path", "")).rstrip("/")


def iso_time(value: Timestamp | float | None) -> str:
    """An ISO 8601 UTC time for <time datetime>; "" when unset."""
    moment = _datetime(value)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z") if moment else ""


def clock_time(value: Timestamp | float | None) -> str:
    """A UTC time people read at a glance ("2026-11-25 03:04:05 UTC"); the page's script shows
    it in the reader's own time zone too."""
    moment = _datetime(value)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else ""


def _datetime(value: Timestamp | float | None) -> datetime | None:
    if isinstance(value, Timestamp):
        if not value.seconds and not value.nanos:
            return None
        return value.ToDatetime(tzinfo=UTC)
    if not value:
        return None
    return datetime.fromtimestamp(value, UTC)


def shorten(text: str, limit: int = 160) -> str:
    """One line of at most `limit` characters (the full text is in a title or detail)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
