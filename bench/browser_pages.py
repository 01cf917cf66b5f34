"""The pages the browser benchmarks visit: the ordinary fixture pages of the test suite and
generated pages of N table rows (a link, a text input and a button per row), generated at run
time and served with the fixtures by `python -m http.server` in a child process."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SITES_DIR = REPO_ROOT / "tests" / "fixtures" / "sites"

ORDINARY = {
    "shop": "/shop/index.html",
    "signup": "/browser/signup.html",
    "widgets": "/browser/widgets.html",
}
ROW_COUNTS = (1000, 3000)


def rows_name(rows: int) -> str:
    return f"rows-{rows}"


def all_pages() -> dict[str, str]:
    """Page name -> path on the benchmark web server, ordinary pages first."""
    generated = {rows_name(n): f"/gen/{rows_name(n)}.html" for n in ROW_COUNTS}
    return ORDINARY | generated


def rows_page(rows: int) -> str:
    """An HTML table of `rows` rows, each with a link, a labelled input and a button."""
    body = "\n".join(
        f'<tr><td><a href="#item-{i}">Item {i}</a></td>'
        f'<td><input type="text" aria-label="Quantity of item {i}"></td>'
        f'<td><button type="button">Add item {i}</button></td></tr>'
        for i in range(1, rows + 1)
    )
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Catalogue of {rows} items</title></head>\n<body><h1>Catalogue</h1>\n"
        f"<table>\n{body}\n</table>\n</body></html>\n"
    )


def build_root(root: Path, rows: Sequence[int] = ROW_COUNTS) -> None:
    """Fixture directories linked in, generated pages written under gen/."""
    for name in ("shop", "browser", "view"):
        (root / name).symlink_to(SITES_DIR / name, target_is_directory=True)
    (root / "gen").mkdir()
    for count in rows:
        (root / "gen" / f"{rows_name(count)}.html").write_text(rows_page(count))


@contextlib.contextmanager
def serve_pages(rows: Sequence[int] = ROW_COUNTS) -> Iterator[str]:
    """Yields the base URL (http://127.0.0.1:PORT) of the benchmark pages while they are served,
    with a generated page of each of `rows` rows."""
    with tempfile.TemporaryDirectory(prefix="bench-browser-web-") as temp:
        root = Path(temp)
        build_root(root, rows)
        process = subprocess.Popen(
            [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1"],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert process.stdout is not None
            match = re.search(r"port (\d+)", process.stdout.readline())
            if match is None:
                raise RuntimeError("http.server did not report its port")
            yield f"http://127.0.0.1:{match.group(1)}"
        finally:
            process.terminate()
            process.wait(10)
            if process.stdout is not None:
                process.stdout.close()
