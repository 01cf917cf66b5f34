"""Scripts evaluated in pages, kept as .js files so they read (and lint) as JavaScript."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load_js(name: str) -> str:
    """The script without its leading comment lines (Playwright must see a bare function)."""
    lines = resources.files(__package__).joinpath(name).read_text().splitlines()
    return "\n".join(line for line in lines if not line.startswith("//"))
