"""Scripts evaluated in pages, kept as .js files so they read (and lint) as JavaScript."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load_js(name: str) -> str:
    """The script, bare (see `bare`)."""
    return bare(resources.files(__package__).joinpath(name).read_text())


def bare(source: str) -> str:
    """A script's text without its leading comment lines (Playwright must see a bare function)."""
    return "\n".join(line for line in source.splitlines() if not line.startswith("//"))
