"""Tokens per step: Outrider's page message against browser-use's page representation (issue 16,
item 2), on the fixture pages of the view benchmark and the 1,000-row table.

Outrider's side is what the model receives for the page each step: `observe.read_page` (the view,
with the default cap and the viewport-first view of very large pages) inside `page_message` (URL,
title, fence). browser-use's side is the `<browser_state>` block of its agent's per-step user
message (`AgentMessagePrompt._get_browser_state_description()`, see bench/browser_use_state.py),
without its system prompt, task, history and file-system parts, which are not the page.
Both are counted with the same cl100k_base counter, on the same Debian Chromium binary started
with Outrider's flags, the same viewport, pages served locally.

browser-use is not a dependency of the project: its side runs in a virtualenv of its own
(bench/.browser-use-venv, created on first use from PyPI with a pinned version), in a child
process that prints JSON, with its telemetry, cloud sync, version check and extension download
switched off; it drives a Chromium started here with a DevTools port.

Run from the repo root: `.venv/bin/python -m bench.browser_use_tokens [--dump DIR]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

from bench.browser_pages import ORDINARY, REPO_ROOT, rows_name, serve_pages
from bench.browser_report import CHROMIUM, table
from bench.browser_tokens import token_counter
from bench.browser_view import VIEW_PAGES
from outrider.server.browser.observe import read_page
from outrider.server.browser.prompts import page_message
from outrider.server.browser.refs import RefMap
from outrider.server.browser.secrets import Secrets
from outrider.server.browser.session import VIEWPORT
from outrider.server.chromium import CHROMIUM_FLAGS
from outrider.server.settings.browser import BrowserSettings

BROWSER_USE_VERSION = "0.13.14"  # the newest release on PyPI when measured (Python 3.11 here)
VENV = REPO_ROOT / "bench" / ".browser-use-venv"
CHILD = REPO_ROOT / "bench" / "browser_use_state.py"
TARGET = 0.6
PAGES = ORDINARY | {rows_name(1000): f"/gen/{rows_name(1000)}.html"} | VIEW_PAGES
QUIET_ENV = {
    "ANONYMIZED_TELEMETRY": "false",
    "BROWSER_USE_CLOUD_SYNC": "false",
    "BROWSER_USE_VERSION_CHECK": "false",
    "BROWSER_USE_CLOUD_HINTS": "false",
    "BROWSER_USE_DISABLE_EXTENSIONS": "1",  # else it downloads uBlock & co. on launch
    "BROWSER_USE_LOGGING_LEVEL": "warning",
}


def venv_python() -> Path:
    """The browser-use virtualenv's interpreter, the venv created or updated when needed."""
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {VENV} ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    installed = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('browser-use'))"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if installed != BROWSER_USE_VERSION:
        print(f"installing browser-use=={BROWSER_USE_VERSION} ...", file=sys.stderr, flush=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", f"browser-use=={BROWSER_USE_VERSION}"],
            check=True,
        )
    return python


@contextlib.contextmanager
def chromium_with_devtools() -> Iterator[str]:
    """Debian's Chromium with Outrider's flags and a DevTools port; yields its http endpoint."""
    with tempfile.TemporaryDirectory(prefix="bench-bu-chromium-") as profile:
        width, height = VIEWPORT["width"], VIEWPORT["height"]
        process = subprocess.Popen(
            [
                CHROMIUM,
                *CHROMIUM_FLAGS,
                "--headless=new",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stderr is not None
            for line in process.stderr:
                match = re.search(r"DevTools listening on ws://([\d.]+:\d+)/", line)
                if match:
                    break
            else:
                raise RuntimeError("Chromium did not report its DevTools port")
            yield f"http://{match.group(1)}"
        finally:
            process.terminate()
            process.wait(10)
            if process.stderr is not None:
                process.stderr.close()


def browser_use_side(base: str) -> dict[str, Any]:
    """browser-use's state for every page, from its own venv in a child process."""
    python = venv_python()
    with (
        chromium_with_devtools() as cdp_url,
        tempfile.TemporaryDirectory(prefix="bench-bu-home-") as home,
    ):
        env = os.environ | QUIET_ENV | {"BROWSER_USE_CONFIG_DIR": home, "XDG_CACHE_HOME": home}
        width, height = VIEWPORT["width"], VIEWPORT["height"]
        urls = [base + path for path in PAGES.values()]
        done = subprocess.run(
            [str(python), str(CHILD), cdp_url, str(width), str(height), *urls],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    if done.returncode != 0:
        raise RuntimeError(f"browser-use side failed:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


async def outrider_side(base: str) -> dict[str, tuple[str, str, str]]:
    """Per page: (the page message the model receives, the view inside it, the title)."""
    found = {}
    settings = BrowserSettings()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=list(CHROMIUM_FLAGS), headless=True
        )
        context = await browser.new_context(viewport=VIEWPORT)
        for name, path in PAGES.items():
            page = await context.new_page()
            await page.goto(base + path)
            read = await read_page(page, 1, RefMap(), Secrets(), settings)
            message = page_message(read.view.text, page.url, read.title, [])
            found[name] = (message, read.view.text, read.title)
            await page.close()
        await browser.close()
    return found


def with_document_title(state: str, title: str) -> str:
    """browser-use's state with the document's title on its tab line. Connected to this
    Chromium, browser-use's tabs (and its summary) carry the URL as the title, as Chromium
    reports it before the page's <title> is known and never updates it here; the document title
    is shorter, so this variant is the more favourable one to browser-use."""
    return re.sub(r"^(Tab \w+: \S+ - ).*$", lambda m: m.group(1) + title[:30], state, flags=re.M)


def dump(directory: Path, name: str, texts: dict[str, str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for side, text in texts.items():
        (directory / f"{name}.{side}.txt").write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", type=Path, help="write every counted text into this directory")
    args = parser.parse_args()
    counter = token_counter()
    if counter.method.startswith("APPROXIMATION"):
        sys.exit("needs cl100k_base: .venv/bin/pip install tiktoken bpe-openai (bench only)")
    count = counter.count
    with serve_pages() as base:
        theirs = browser_use_side(base)
        ours = asyncio.run(outrider_side(base))
    rows = []
    for name, state in zip(PAGES, theirs["pages"], strict=True):
        message, view, title = ours[name]
        titled = with_document_title(state["browser_state"], title)
        their_t, titled_t, our_t = count(state["browser_state"]), count(titled), count(message)
        rows.append(
            [
                name,
                f"{their_t:,}",
                f"{titled_t:,}",
                f"{count(state['elements']):,}",
                f"{our_t:,}",
                f"{count(view):,}",
                f"{our_t / their_t:.2f}",
                f"{our_t / titled_t:.2f}",
                "met" if our_t / titled_t <= TARGET else "**not met**",
            ]
        )
        if args.dump:
            texts = {"browser-use": state["browser_state"], "browser-use-titled": titled}
            texts |= {"outrider": message}
            dump(args.dump, name.split(" ")[0], texts)
    headers = [
        "page",
        "browser-use browser_state",
        "same, document title",
        "(its element tree)",
        "Outrider page message",
        "(its view)",
        "ratio",
        "ratio, document title",
        f"≤ {TARGET} (document title)",
    ]
    viewports = {tuple(page["viewport"] or ()) for page in theirs["pages"]}
    sys.stdout.write(
        f"browser-use {theirs['version']} (viewport seen by it: {sorted(viewports)}), "
        f"Outrider viewport {VIEWPORT['width']}x{VIEWPORT['height']}, tokens: {counter.method}\n\n"
        f"{table(headers, rows)}\n"
    )


if __name__ == "__main__":
    main()
