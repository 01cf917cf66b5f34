"""The runs page's filters and sort, as the address bar keeps them: state, kind, task text, who
started the run, when (a recent period, or from and to in UTC), and the column the page is
sorted by."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urlencode

from starlette.requests import Request

from outrider.server.console_edge.views import KIND_FILTERS, STATE_FILTERS, RunView
from outrider.server.core import clock
from outrider.server.core.runs.search import RunMatch

PAGE_SIZE = 25
MAX_PAGE_SIZE = 200
# ?since=: a recent period -> (its label, seconds back from now)
PERIODS: dict[str, tuple[str, int]] = {
    "": ("Any time", 0),
    "1h": ("Last hour", 3600),
    "24h": ("Last 24 hours", 86_400),
    "7d": ("Last 7 days", 7 * 86_400),
    "30d": ("Last 30 days", 30 * 86_400),
}
# ?sort=: a column -> (its name, the figure of a run it sorts by)
SORTS = {
    "started": "Started",
    "duration": "Duration",
    "steps": "Steps",
    "tokens": "Tokens",
    "cost": "Cost",
}
_LOCAL_FORMAT = "%Y-%m-%dT%H:%M"  # what <input type="datetime-local"> sends


@dataclass(frozen=True)
class Filters:
    state: str = ""
    kind: str = ""
    text: str = ""
    page: str = ""
    size: int = PAGE_SIZE
    creator: str = ""
    since: str = ""
    start: str = ""  # from, "YYYY-MM-DDTHH:MM" in UTC
    end: str = ""  # to, likewise
    sort: str = "started"
    ascending: bool = False
    problems: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def of(cls, request: Request) -> Filters:
        query = request.query_params
        size = query.get("size", "")
        problems = []
        start, end = query.get("from", "").strip(), query.get("to", "").strip()
        for name, value in (("From", start), ("To", end)):
            if value and _utc_us(value) is None:
                problems.append(f"{name} is not a date and time (YYYY-MM-DDTHH:MM, UTC)")
        return cls(
            _known(query.get("state", ""), STATE_FILTERS),
            _known(query.get("kind", ""), KIND_FILTERS),
            query.get("q", "").strip()[:200],
            query.get("page", ""),
            int(size) if size.isdigit() and 0 < int(size) <= MAX_PAGE_SIZE else PAGE_SIZE,
            query.get("by", "").strip()[:200],
            _known(query.get("since", ""), PERIODS),
            start if _utc_us(start) else "",
            end if _utc_us(end) else "",
            _known(query.get("sort", ""), SORTS) or "started",
            query.get("order", "") == "asc",
            tuple(problems),
        )

    @property
    def narrowed(self) -> bool:
        """Whether any filter leaves runs out."""
        return any(
            (self.text, self.state, self.kind, self.creator, self.since, self.start, self.end)
        )

    def match(self) -> RunMatch:
        since_us = 0
        if self.since:
            since_us = clock.now_us() - PERIODS[self.since][1] * 1_000_000
        since_us = max(since_us, _utc_us(self.start) or 0)
        return RunMatch(
            created_by=self.creator,
            created_since_us=since_us,
            created_until_us=_utc_us(self.end) or 0,
        )

    def query(self, page: str | None = None, **changes: str) -> str:
        """The address bar's query for these filters (and `changes`), on `page`."""
        values = {
            "state": self.state,
            "kind": self.kind,
            "q": self.text,
            "by": self.creator,
            "since": self.since,
            "from": self.start,
            "to": self.end,
            "sort": "" if self.sort == "started" else self.sort,
            "order": "asc" if self.ascending else "",
            "page": page or "",
        }
        if self.size != PAGE_SIZE:
            values["size"] = str(self.size)
        values |= changes
        return urlencode({k: v for k, v in values.items() if v})

    def sort_query(self, column: str) -> str:
        """The query that sorts by `column`: largest first, or the other way when it already is."""
        ascending = column == self.sort and not self.ascending
        return self.query(
            sort="" if column == "started" else column, order="asc" if ascending else ""
        )

    def aria_sort(self, column: str) -> str:
        if column != self.sort:
            return "none"
        return "ascending" if self.ascending else "descending"

    def sorted(self, runs: list[RunView]) -> list[RunView]:
        """The page's runs by the sort column (newest first is the store's own order)."""
        if self.sort == "started":
            return list(reversed(runs)) if self.ascending else runs
        figure = _FIGURES[self.sort]
        known = [run for run in runs if figure(run) is not None]
        unknown = [run for run in runs if figure(run) is None]  # always last
        known.sort(key=lambda run: figure(run) or 0, reverse=not self.ascending)
        return known + unknown


_FIGURES: dict[str, Callable[[RunView], float | None]] = {
    "duration": lambda run: run.duration,
    "steps": lambda run: run.steps,
    "tokens": lambda run: run.tokens,
    "cost": lambda run: run.cost,
}


def _known(value: str, table: Mapping[str, object]) -> str:
    return value if value in table else ""


def _utc_us(text: str) -> int | None:
    """Microseconds of a "YYYY-MM-DDTHH:MM" taken as UTC; None when it is not one."""
    if not text:
        return None
    try:
        moment = datetime.strptime(text[:16], _LOCAL_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return None
    return int(moment.timestamp() * 1_000_000)
