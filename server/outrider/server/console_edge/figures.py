"""Figures as people read them: durations, token counts, costs, places in line, hosts. The
templates use them as filters; the page's script keeps durations of running runs and relative
times current (static/console.js), in the same words."""

from __future__ import annotations

from urllib.parse import urlsplit

NO_FIGURE = "—"  # an unknown figure: no price for the model, a run not started yet


def duration(seconds: float | None) -> str:
    """ "45 s", "3 min 05 s", "2 h 04 min"; "—" when unknown."""
    if seconds is None or seconds < 0:
        return NO_FIGURE
    whole = int(seconds)
    if whole < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def count(value: int) -> str:
    """A count with thousands separators: 12,345."""
    return f"{value:,}"


def cost(usd: float | None) -> str:
    """ "$0.0042", "$1.23"; "—" without a price."""
    if usd is None:
        return NO_FIGURE
    if usd == 0:
        return "$0"
    if usd < 1:
        return f"${usd:.4f}"
    return f"${usd:,.2f}"


def ordinal(place: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st."""
    if 10 <= place % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def host(url: str) -> str:
    """The host name of a URL ("" for none)."""
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""
