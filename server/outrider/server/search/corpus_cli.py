"""Builds or updates the local corpus index.

    python -m outrider.server.search.corpus_cli DIR --base-url URL [--index PATH] [--ignore-robots]
    python -m outrider.server.search.corpus_cli --urls FILE [--index PATH]

A directory's HTML, Markdown and text files are indexed under the URL where DIR is served
(--base-url), except the ones its robots.txt (DIR/robots.txt, the served site's) disallows for the
research agent's User-Agent, unless --ignore-robots; a URL list (one per line, # comments) is
fetched through the research fetcher, so robots.txt and the network guard apply. The index
defaults to the research agent's: OUTRIDER_RESEARCH_CORPUS_INDEX, else
<OUTRIDER_DATA_DIR>/corpus.sqlite3.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import sys
from pathlib import Path
from urllib.parse import quote

from outrider.server.fetch.extract import extract_html, extract_text
from outrider.server.fetch.fetcher import Fetcher
from outrider.server.fetch.robots import RobotsRules, agent_token, rules_from_response
from outrider.server.net.guard import NetworkGuard
from outrider.server.search.corpus import CorpusIndex, Document, IndexReport
from outrider.server.settings import Settings
from outrider.server.settings.research import DEFAULT_USER_AGENT

SUFFIXES = {".html", ".htm", ".md", ".markdown", ".txt"}
NOT_DOCUMENTS = {"robots.txt"}  # served beside the documents, not one of them


def index_directory(
    index: CorpusIndex,
    root: Path,
    base_url: str,
    user_agent: str = DEFAULT_USER_AGENT,
    honour_robots: bool = True,
) -> IndexReport:
    """Indexes the documents of `root` (served at `base_url`) that its robots.txt, if any,
    lets `user_agent` read, as a crawler of the served site would; the rest leave the index."""
    root = root.resolve()
    source = f"dir:{root}|{base_url}"
    known = index.signatures(source)
    rules = _directory_rules(root) if honour_robots else RobotsRules(None)
    agent = agent_token(user_agent)
    changed, keep, unchanged = [], set(), 0
    paths = (p for p in root.rglob("*") if p.suffix.lower() in SUFFIXES)
    for path in sorted(p for p in paths if p.name not in NOT_DOCUMENTS):
        url = base_url.rstrip("/") + "/" + quote(path.relative_to(root).as_posix())
        if not rules.allows(url, agent):
            continue
        stat = path.stat()
        signature = f"{stat.st_mtime_ns}:{stat.st_size}"
        keep.add(url)
        if known.get(url) == signature:
            unchanged += 1
            continue
        changed.append(_document(path, url, signature))
    return index.apply(source, changed, keep, unchanged)


def _directory_rules(root: Path) -> RobotsRules:
    """The rules of the directory's robots.txt (served at its base URL), or none."""
    robots = root / "robots.txt"
    if not robots.is_file():
        return RobotsRules(None)
    return rules_from_response(200, robots.read_bytes())


def _document(path: Path, url: str, signature: str) -> Document:
    text = path.read_text(errors="replace")
    extracted = extract_html(text, url) if path.suffix.lower() in {".html", ".htm"} else None
    extracted = extracted or extract_text(text)
    return Document(url, extracted.title, extracted.text, signature)


def read_urls(urls_file: Path) -> tuple[str, list[str]]:
    """The source key of a URL list and its URLs."""
    lines = urls_file.read_text().splitlines()
    urls = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    return f"urls:{urls_file.resolve()}", urls


async def index_urls(
    index: CorpusIndex, source: str, urls: list[str], settings: Settings
) -> IndexReport:
    known = index.signatures(source)
    guard = NetworkGuard(settings.network_allow)
    research = settings.research
    async with Fetcher(research, guard, None, settings.chromium_path) as fetcher:
        outcomes = await asyncio.gather(
            *(fetcher.fetch(url, research.fetch_timeout) for url in urls)
        )
    changed, keep, unchanged = [], set(), 0
    for outcome in outcomes:
        if outcome.page is None:
            print(f"skipped {outcome.url}: {outcome.error}", file=sys.stderr)
            continue
        page = outcome.page
        signature = hashlib.sha256(page.text.encode()).hexdigest()
        keep.add(page.url)
        if known.get(page.url) == signature:
            unchanged += 1
        else:
            changed.append(Document(page.url, page.title, page.text, signature))
    return index.apply(source, changed, keep, unchanged)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("directory", nargs="?", type=Path, help="directory of documents")
    parser.add_argument("--base-url", help="URL where DIRECTORY is served")
    parser.add_argument("--urls", type=Path, help="file listing URLs to fetch and index")
    parser.add_argument("--index", type=Path, help="index file (default: the agent's)")
    parser.add_argument(
        "--ignore-robots",
        action="store_true",
        help="index DIRECTORY's files even where its robots.txt disallows them (your own files)",
    )
    args = parser.parse_args(argv)
    if (args.directory is None) == (args.urls is None):
        parser.error("give either DIRECTORY (with --base-url) or --urls FILE")
    if args.directory is not None and not args.base_url:
        parser.error("DIRECTORY needs --base-url, the URL where it is served")
    settings = Settings()
    index = CorpusIndex(args.index or settings.research.corpus_path(settings.data_dir))
    if args.directory is not None:
        report = index_directory(
            index,
            args.directory,
            args.base_url,
            settings.research.user_agent,
            honour_robots=not args.ignore_robots,
        )
    else:
        report = asyncio.run(index_urls(index, *read_urls(args.urls), settings))
    print(
        f"{index.path}: {report.added} added, {report.updated} updated, "
        f"{report.unchanged} unchanged, {report.removed} removed"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
