"""robots.txt rules of one origin, read the way RFC 9309 asks: a 4xx answer means no rules, an
unreachable file or a 5xx answer means everything is disallowed, and rules are matched with
protego: the group of the longest matching product token, the most specific (longest) matching
rule, allow on a tie, `*` and `$` in patterns. Only the first 500 KiB are parsed (the least the
RFC lets a crawler read); lines past them are ignored."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from protego import Protego

MAX_CRAWL_DELAY = 10.0  # seconds; a larger Crawl-delay would stall a whole run
MAX_ROBOTS_BYTES = 500 * 1024


@dataclass(frozen=True)
class RobotsRules:
    parser: Protego | None  # None: no rules apply
    disallow_all: bool = False

    def allows(self, url: str, agent: str) -> bool:
        if self.disallow_all:
            return False
        return self.parser is None or self.parser.can_fetch(url, agent)

    def crawl_delay(self, agent: str) -> float:
        delay = self.parser.crawl_delay(agent) if self.parser else None
        return min(float(delay), MAX_CRAWL_DELAY) if delay else 0.0


def rules_from_response(status: int | None, body: bytes | str) -> RobotsRules:
    """`status` None means the file could not be fetched at all. `body`: the file as fetched
    (bytes are read as UTF-8, as the RFC says), cut at MAX_ROBOTS_BYTES."""
    if status is not None and 200 <= status < 300:
        raw = body if isinstance(body, bytes) else body.encode()
        text = raw[:MAX_ROBOTS_BYTES].decode("utf-8", errors="replace")
        if len(raw) > MAX_ROBOTS_BYTES:
            text = text[: text.rfind("\n") + 1]  # a line cut in two is not a rule
        return RobotsRules(Protego.parse(text))
    if status is not None and 400 <= status < 500:
        return RobotsRules(None)
    return RobotsRules(None, disallow_all=True)


def robots_url(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/robots.txt"


def agent_token(user_agent: str) -> str:
    """The product token robots.txt groups name, e.g. "OutriderResearch"."""
    return user_agent.split("/", 1)[0].split()[0]
