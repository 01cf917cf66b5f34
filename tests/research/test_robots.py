"""robots.txt read by RFC 9309: the examples of its section 5, the longest match over the first
match, `*` and `$` patterns, product tokens in any case, and the 500 KiB parsing limit."""

from __future__ import annotations

import pytest

from outrider.server.fetch.robots import MAX_ROBOTS_BYTES, rules_from_response

SITE = "https://www.example.com"
# RFC 9309, 5.1: one group for everyone, one for foobot, one shared by barbot and bazbot, and an
# empty group for quxbot at the end of the file.
SIMPLE = b"""User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot
"""


@pytest.mark.parametrize(
    ("agent", "path", "allowed"),
    [
        ("OutriderResearch", "/publications/2024.html", True),
        ("OutriderResearch", "/example/page.html", False),
        ("OutriderResearch", "/images/logo.gif", False),
        ("OutriderResearch", "/images/logo.gif?size=2", True),  # `$`: the path ends there
        ("foobot", "/example/page.html", True),  # the longer Allow beats `Disallow:/`
        ("foobot", "/example/allowed.gif", True),
        ("foobot", "/publications/", False),
        ("FooBot", "/example/other.html", False),  # a product token matches in any case
        ("barbot", "/example/page.html", False),
        ("bazbot", "/example/page.html", False),
        ("bazbot", "/example/other.html", True),  # its own group, not the `*` one
        ("quxbot", "/example/page.html", True),  # an empty group allows everything
    ],
)
def test_the_simple_example_of_the_rfc(agent: str, path: str, allowed: bool) -> None:
    assert rules_from_response(200, SIMPLE).allows(SITE + path, agent) is allowed


def test_the_longest_match_wins_not_the_first() -> None:
    """RFC 9309, 5.2 (urllib.robotparser applies the first matching line instead)."""
    rules = rules_from_response(
        200, b"User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n"
    )
    assert rules.allows(f"{SITE}/example/page/", "foobot")
    assert rules.allows(f"{SITE}/example/page/other.gif", "foobot")
    assert not rules.allows(f"{SITE}/example/page/disallowed.gif", "foobot")


def test_wildcards_and_end_anchors_and_allow_on_a_tie() -> None:
    rules = rules_from_response(
        200,
        b"User-agent: *\nDisallow: /*.php$\nDisallow: /shop/*/cart\n"
        b"Disallow: /same\nAllow: /same\n",
    )
    assert not rules.allows(f"{SITE}/a/index.php", "OutriderResearch")
    assert rules.allows(f"{SITE}/a/index.php?x=1", "OutriderResearch")
    assert not rules.allows(f"{SITE}/shop/7/cart", "OutriderResearch")
    assert rules.allows(f"{SITE}/shop/cart", "OutriderResearch")
    assert rules.allows(f"{SITE}/same", "OutriderResearch")  # equivalent rules: allow


def test_only_the_first_500_kib_are_parsed() -> None:
    padding = b"# " + b"x" * 98 + b"\n"
    early = b"User-agent: *\nDisallow: /early/\n"
    body = early + padding * (MAX_ROBOTS_BYTES // len(padding)) + b"Disallow: /late/\n"
    assert len(body) > MAX_ROBOTS_BYTES
    rules = rules_from_response(200, body)
    assert not rules.allows(f"{SITE}/early/x", "OutriderResearch")
    assert rules.allows(f"{SITE}/late/x", "OutriderResearch")  # past the limit: ignored


def test_statuses_as_the_rfc_reads_them() -> None:
    assert rules_from_response(404, b"").allows(f"{SITE}/x", "OutriderResearch")
    assert not rules_from_response(503, b"").allows(f"{SITE}/x", "OutriderResearch")
    assert not rules_from_response(None, b"").allows(f"{SITE}/x", "OutriderResearch")
    delayed = rules_from_response(200, b"User-agent: *\nCrawl-delay: 60\n")
    assert delayed.crawl_delay("OutriderResearch") == 10.0  # capped
