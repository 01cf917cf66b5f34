"""Scripts evaluated in pages, kept as .js files so they read (and lint) as JavaScript.

A script may name helpers on a `// uses: a.js, b.js` comment line: each helper file declares
one constant (a function), which the loaded script can call."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from importlib import resources

_USES = re.compile(r"^// uses: (.+)$", re.MULTILINE)


@cache
def load_js(name: str) -> str:
    """The script, bare (see `bare`), with the helpers it uses."""
    return with_helpers(_read(name), _read)


def _read(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text()


def with_helpers(source: str, read: Callable[[str], str]) -> str:
    """The script bare, wrapped in a function that declares the helpers its `// uses:` lines
    name (each read with `read`) and calls it with the same arguments."""
    helpers = [name.strip() for line in _USES.findall(source) for name in line.split(",")]
    if not helpers:
        return bare(source)
    declared = "\n".join(bare(read(helper)) for helper in helpers)
    return f"(...args) => {{\n{declared}\nreturn ({bare(source)})(...args);\n}}"


def bare(source: str) -> str:
    """A script's text without its leading comment lines (Playwright must see a bare function)."""
    return "\n".join(line for line in source.splitlines() if not line.startswith("//"))
