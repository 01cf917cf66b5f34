"""A research report (Markdown written by a model from web pages) as safe HTML.

markdown-it-py renders CommonMark with raw HTML off (any HTML in the text shows as text); the
citation markers `[S3]` / `[S1, S4]` become links to the cited pages; nh3 (Ammonia) then keeps
only an allowlist of tags and attributes, http(s) and mailto links, and marks every link
noopener/noreferrer/nofollow. Images are dropped: the console loads nothing from other origins.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import nh3
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from outrider.v1 import research_events_pb2 as re_pb

_MARKER = re.compile(r"\[\s*(S\d+(?:\s*,\s*S\d+)*)\s*\]")
_TAGS = {
    "a", "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "code",
    "pre", "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "sup",
}  # fmt: skip
_ATTRIBUTES = {"a": {"href", "title", "class"}, "th": {"align"}, "td": {"align"}, "ol": {"start"}}


def report_html(report: str, cited: Mapping[str, tuple[str, str]]) -> str:
    """`report` as sanitised HTML; `cited` maps source ids (S1) to (url, title)."""
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    parser.core.ruler.push("citations", lambda state: _link_citations(state, cited))
    return nh3.clean(
        parser.render(report),
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )


def cited_pages(metadata: re_pb.ResearchMetadata) -> dict[str, tuple[str, str]]:
    return {page.id: (page.url, page.title) for page in metadata.cited_pages if page.id}


def _link_citations(state: StateCore, cited: Mapping[str, tuple[str, str]]) -> None:
    """Splits the text tokens holding markers, outside links, into text and citation links."""
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        depth = 0
        for token in block.children:
            depth += {"link_open": 1, "link_close": -1}.get(token.type, 0)
            if token.type == "text" and depth == 0 and _MARKER.search(token.content):
                children.extend(_split(token.content, cited))
            else:
                children.append(token)
        block.children = children


def _split(text: str, cited: Mapping[str, tuple[str, str]]) -> list[Token]:
    tokens: list[Token] = []
    position = 0
    for match in _MARKER.finditer(text):
        tokens.append(_text(text[position : match.start()] + "["))
        for index, source in enumerate(part.strip() for part in match.group(1).split(",")):
            if index:
                tokens.append(_text(", "))
            tokens.extend(_citation(source, cited.get(source)))
        tokens.append(_text("]"))
        position = match.end()
    tokens.append(_text(text[position:]))
    return tokens


def _citation(source: str, page: tuple[str, str] | None) -> list[Token]:
    if page is None or not page[0]:
        return [_text(source)]
    url, title = page
    opening = Token("link_open", "a", 1, attrs={"href": url, "title": title or url})
    opening.attrSet("class", "citation")
    return [opening, _text(source), Token("link_close", "a", -1)]


def _text(content: str) -> Token:
    return Token("text", "", 0, content=content)
