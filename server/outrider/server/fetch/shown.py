"""URLs as events and logs may show them: the host (and port) only. Userinfo, query tokens and
even path segments can be credentials, so a refused or failed address is never shown whole."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^\s'\"<>]*", re.I)


def shown_host(url: str) -> str:
    """`host` or `host:port` of `url` (IPv6 in brackets); never its userinfo, path or query."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    host = f"[{host}]" if ":" in host else host
    try:
        port = parts.port
    except ValueError:  # a port that is no number
        port = None
    return f"{host}:{port}" if port else host


def without_urls(text: str) -> str:
    """`text` with every URL in it cut down to its host."""
    return _URL.sub(lambda m: shown_host(m.group(0)), text)
