"""Page titles as the run shows them. A title is page-chosen text: shown anywhere (prompts,
events, the report's sources list) it is plain text of ours, not markup, links or fence
markers of the page's."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from outrider.server.security.fences import inline, marker_spans

TITLE_CHARS = 150
_TAG = re.compile(r"<[^>]*>")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S*|\bwww\.\S+", re.I)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")


def plain_title(title: str) -> str:
    """`title` without markup (HTML tags, character references), URLs (a report's sources list
    shows the URL the run fetched, and no other) and control characters; one line of at most
    TITLE_CHARS, the fence marker defused."""
    text = _TAG.sub(" ", html.unescape(title))
    return inline(_URL.sub(" ", _CONTROL.sub(" ", text)), TITLE_CHARS)


def markdown_text(text: str) -> str:
    """Plain `text` for a Markdown document: every character Markdown could read as markup
    (a link, emphasis, an HTML tag, a heading) escaped."""
    return _MARKDOWN.sub(r"\\\1", text)


def markdown_url(url: str) -> str:
    """A fetched URL for a Markdown document, as an autolink (`<...>`): characters a URL may not
    hold percent-encoded (spaces, quotes, angle brackets, non-ASCII), and the underscore of the
    fence marker word encoded too (`%5F`, the same URL), so the report never writes the marker."""
    encoded = quote(url, safe="/:?#[]@!$&'()*+,;=%~-._")
    for start, end in reversed(marker_spans(encoded)):
        encoded = encoded[:start] + encoded[start:end].replace("_", "%5F") + encoded[end:]
    return f"<{encoded}>"
