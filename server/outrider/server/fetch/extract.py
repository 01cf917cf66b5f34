"""Turns a response body into a page: main text as Markdown (trafilatura), links, and title."""

from __future__ import annotations

import io
from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin

import lxml.html
import pypdf
import trafilatura
from lxml.etree import ParserError

MAX_LINKS = 200


@dataclass(frozen=True)
class Link:
    url: str
    text: str


@dataclass(frozen=True)
class Extracted:
    title: str
    text: str  # Markdown
    links: tuple[Link, ...]
    scripted: bool = False  # the HTML runs scripts, so its text may need JavaScript


def extract_html(html: str, url: str) -> Extracted:
    text = trafilatura.extract(
        html, url=url, output_format="markdown", include_tables=True, favor_recall=True
    )
    try:
        doc = lxml.html.fromstring(html)
    except (ParserError, ValueError):
        return Extracted("", text or "", ())
    title = (doc.findtext(".//title") or "").strip()
    scripted = bool(doc.xpath("//script"))
    return Extracted(title, text or "", _links(doc, url), scripted)


def _links(doc: lxml.html.HtmlElement, base: str) -> tuple[Link, ...]:
    seen: dict[str, Link] = {}
    for anchor in doc.xpath("//a[@href]"):
        href = urldefrag(urljoin(base, str(anchor.get("href", "")).strip())).url
        if href.startswith(("http://", "https://")) and href not in seen and href != base:
            seen[href] = Link(href, " ".join(anchor.text_content().split())[:200])
        if len(seen) >= MAX_LINKS:
            break
    return tuple(seen.values())


def extract_pdf(data: bytes) -> Extracted:
    reader = pypdf.PdfReader(io.BytesIO(data))
    pages = [page.extract_text() or "" for page in reader.pages]
    title = ""
    if reader.metadata is not None and reader.metadata.title:
        title = str(reader.metadata.title)
    return Extracted(title, "\n\n".join(p.strip() for p in pages if p.strip()), ())


def extract_text(body: str) -> Extracted:
    first = next((line for line in body.splitlines() if line.strip()), "")
    return Extracted(first.lstrip("# ").strip()[:200], body, ())
