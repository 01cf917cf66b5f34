"""Turns a response body into a page: main text as Markdown (trafilatura), links, and title."""

from __future__ import annotations

import io
from dataclasses import dataclass
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

import lxml.html
import pypdf
import trafilatura
from lxml.etree import ParserError

MAX_LINKS = 200
MAX_TITLE = 150
MAX_HEADING_WORDS = 12


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
    canonical: str = ""  # the page's <link rel="canonical">: the URL of the copy it duplicates


def extract_html(html: str, url: str) -> Extracted:
    text = trafilatura.extract(
        html, url=url, output_format="markdown", include_tables=True, favor_recall=True
    )
    try:
        doc = lxml.html.fromstring(html)
    except (ParserError, ValueError):
        return Extracted("", text or "", ())
    title = " ".join((doc.findtext(".//title") or "").split()) or _first_heading(doc)
    scripted = bool(doc.xpath("//script"))
    return Extracted(title, text or "", _links(doc, url), scripted, _canonical(doc, url))


def _first_heading(doc: lxml.html.HtmlElement) -> str:
    for heading in doc.xpath("//h1 | //h2"):
        text = " ".join(heading.text_content().split())
        if text:
            return text[:MAX_TITLE]
    return ""


def _canonical(doc: lxml.html.HtmlElement, base: str) -> str:
    for link in doc.xpath("//link[@rel][@href]"):
        if "canonical" in str(link.get("rel", "")).lower().split():
            href = urldefrag(urljoin(base, str(link.get("href", "")).strip())).url
            return href if href.startswith(("http://", "https://")) else ""
    return ""


def _links(doc: lxml.html.HtmlElement, base: str) -> tuple[Link, ...]:
    seen: dict[str, Link] = {}
    for anchor in doc.xpath("//a[@href]"):
        href = urldefrag(urljoin(base, str(anchor.get("href", "")).strip())).url
        if href.startswith(("http://", "https://")) and href not in seen and href != base:
            seen[href] = Link(href, " ".join(anchor.text_content().split())[:200])
        if len(seen) >= MAX_LINKS:
            break
    return tuple(seen.values())


def extract_pdf(data: bytes, url: str = "") -> Extracted:
    """A PDF's text; its title from the metadata, else its first heading, else its file name."""
    reader = pypdf.PdfReader(io.BytesIO(data))
    pages = [(page.extract_text() or "").strip() for page in reader.pages]
    text = "\n\n".join(p for p in pages if p)
    title = ""
    if reader.metadata is not None and reader.metadata.title:
        title = " ".join(str(reader.metadata.title).split())
    return Extracted(title or _pdf_heading(reader, text) or file_name(url), text, ())


def _pdf_heading(reader: pypdf.PdfReader, text: str) -> str:
    """The first bookmark of the outline, else a short first line (how a title page starts)."""
    outline: object = reader.outline
    while isinstance(outline, list) and outline:
        outline = outline[0]
    if isinstance(outline, pypdf.generic.Destination) and str(outline.title or "").strip():
        return " ".join(str(outline.title).split())[:MAX_TITLE]
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first if _looks_like_heading(first) else ""


def _looks_like_heading(line: str) -> bool:
    """Short, capitalised, and not running on like a sentence."""
    letters = [c for c in line if c.isalpha()]
    return (
        bool(letters)
        and letters[0].isupper()
        and len(line.split()) <= MAX_HEADING_WORDS
        and not line.endswith((".", ",", ";", ":"))
    )


def file_name(url: str) -> str:
    """The last path segment of `url`, decoded: what a page without a title is called."""
    return unquote(urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1])[:MAX_TITLE]


def extract_text(body: str) -> Extracted:
    first = next((line for line in body.splitlines() if line.strip()), "")
    return Extracted(first.lstrip("# ").strip()[:200], body, ())
