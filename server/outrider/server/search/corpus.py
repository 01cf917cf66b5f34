"""The local corpus: an SQLite FTS5 index of documents (files of a directory served at a base
URL, or pages fetched from a list of URLs), and the search provider that queries it.

Re-indexing a source updates changed documents and drops the ones that disappeared.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from outrider.server.search.base import SearchError, SearchResult

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS documents "
    "(url TEXT PRIMARY KEY, source TEXT NOT NULL, signature TEXT NOT NULL)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts "
    "USING fts5(url UNINDEXED, title, body, tokenize='porter unicode61')",
)
_WORD = re.compile(r"\w+", re.UNICODE)
MAX_QUERY_TERMS = 32


@dataclass(frozen=True)
class Document:
    url: str
    title: str
    body: str
    signature: str  # changes when the content changes (mtime and size, or a hash)


@dataclass(frozen=True)
class IndexReport:
    added: int
    updated: int
    unchanged: int
    removed: int


class CorpusIndex:
    def __init__(self, path: Path) -> None:
        self.path = path

    @contextlib.contextmanager
    def _connect(self, create: bool = False) -> Iterator[sqlite3.Connection]:
        if not create and not self.path.is_file():
            raise SearchError(
                f"corpus: no index at {self.path}; build one with "
                "`python -m outrider.server.search.corpus_cli`"
            )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=10)
        try:
            with db:
                for statement in _SCHEMA:
                    db.execute(statement)
                yield db
        finally:
            db.close()

    def signatures(self, source: str) -> dict[str, str]:
        with self._connect(create=True) as db:
            rows = db.execute("SELECT url, signature FROM documents WHERE source = ?", (source,))
            return dict(rows.fetchall())

    def apply(
        self, source: str, changed: list[Document], keep: set[str], unchanged: int
    ) -> IndexReport:
        """Writes `changed` documents and removes the source's documents not in `keep`."""
        known = self.signatures(source)
        gone = [url for url in known if url not in keep]
        with self._connect(create=True) as db:
            for url in gone:
                _delete(db, url)
            for doc in changed:
                _delete(db, doc.url)
                db.execute(
                    "INSERT INTO documents (url, source, signature) VALUES (?, ?, ?)",
                    (doc.url, source, doc.signature),
                )
                db.execute(
                    "INSERT INTO documents_fts (url, title, body) VALUES (?, ?, ?)",
                    (doc.url, doc.title, doc.body),
                )
        added = sum(1 for doc in changed if doc.url not in known)
        return IndexReport(added, len(changed) - added, unchanged, len(gone))

    def search(self, query: str, count: int) -> list[SearchResult]:
        match = fts_query(query)
        if not match:
            return []
        with self._connect() as db:
            rows = db.execute(
                "SELECT url, title, snippet(documents_fts, 2, '', '', '…', 24) "
                "FROM documents_fts WHERE documents_fts MATCH ? "
                "ORDER BY bm25(documents_fts, 0.0, 5.0, 1.0), url LIMIT ?",
                (match, count),
            ).fetchall()
        return [SearchResult(url, title or url, snippet, "corpus") for url, title, snippet in rows]


def _delete(db: sqlite3.Connection, url: str) -> None:
    db.execute("DELETE FROM documents WHERE url = ?", (url,))
    db.execute("DELETE FROM documents_fts WHERE url = ?", (url,))


def fts_query(text: str) -> str:
    """Free text as an FTS5 query: every word quoted (no operator injection), any may match."""
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))[:MAX_QUERY_TERMS]
    return " OR ".join(f'"{word}"' for word in words)


class CorpusProvider:
    name = "corpus"

    def __init__(self, index: CorpusIndex) -> None:
        self._index = index

    async def search(self, query: str, count: int) -> list[SearchResult]:
        try:
            return await asyncio.to_thread(self._index.search, query, count)
        except sqlite3.Error as error:
            raise SearchError(f"corpus: {error}") from None
