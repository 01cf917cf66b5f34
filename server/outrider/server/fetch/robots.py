"""robots.txt rules of one origin, read the way RFC 9309 asks: a 4xx answer means no rules, an
unreachable file or a 5xx answer means everything is disallowed."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

MAX_CRAWL_DELAY = 10.0  # seconds; a larger Crawl-delay would stall a whole run


@dataclass(frozen=True)
class RobotsRules:
    parser: RobotFileParser | None  # None: no rules apply
    disallow_all: bool = False

    def allows(self, url: str, agent: str) -> bool:
        if self.disallow_all:
            return False
        return self.parser is None or self.parser.can_fetch(agent, url)

    def crawl_delay(self, agent: str) -> float:
        delay = self.parser.crawl_delay(agent) if self.parser else None
        return min(float(delay), MAX_CRAWL_DELAY) if delay else 0.0


def rules_from_response(status: int | None, text: str) -> RobotsRules:
    """`status` None means the file could not be fetched at all."""
    if status is not None and 200 <= status < 300:
        parser = RobotFileParser()
        parser.parse(text.splitlines())
        return RobotsRules(parser)
    if status is not None and 400 <= status < 500:
        return RobotsRules(None)
    return RobotsRules(None, disallow_all=True)


def robots_url(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/robots.txt"


def agent_token(user_agent: str) -> str:
    """The product token robots.txt groups name, e.g. "OutriderResearch"."""
    return user_agent.split("/", 1)[0].split()[0]
