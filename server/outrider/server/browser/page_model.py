"""What the model sees of a page: Playwright's AI-mode snapshot, with our refs, secrets redacted,
compressed and capped.

Compression keeps refs only where the model can act (links, buttons, fields, clickable elements),
shortens role names, drops anonymous wrapper lines and halves indentation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from outrider.server.browser.refs import RefMap
from outrider.server.browser.secrets import Secrets

INTERACTIVE_ROLES = frozenset(
    {
        "link",
        "button",
        "textbox",
        "searchbox",
        "combobox",
        "listbox",
        "option",
        "checkbox",
        "radio",
        "switch",
        "slider",
        "spinbutton",
        "tab",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "treeitem",
        "iframe",
    }
)
_SHORT_ROLES = {
    "generic": "div",
    "paragraph": "p",
    "heading": "h",
    "listitem": "li",
    "textbox": "input",
    "combobox": "select",
    "navigation": "nav",
    "contentinfo": "footer",
}
_LINE = re.compile(r"^(?P<indent> *)- (?P<role>[a-z]+)(?P<rest>.*)$")
_REF = re.compile(r" \[ref=(E\d+)\]")
_NOISE = re.compile(r" \[cursor=pointer\]")

ELEMENT_COUNT_JS = "() => document.getElementsByTagName('*').length"
PASSWORD_VALUES_JS = """() => Array.from(document.querySelectorAll('input[type=password]'))
  .map(e => e.value).filter(v => v)"""


@dataclass(frozen=True)
class PageView:
    text: str  # what the model sees
    raw_size: int
    compressed_size: int
    truncated_lines: int


def build_view(raw: str, page_key: int, refs: RefMap, secrets: Secrets, cap: int) -> PageView:
    """From a raw Playwright AI snapshot to the model's view of the page."""
    renamed = secrets.redact(refs.rename(page_key, raw))
    lines = [_compress_line(line) for line in renamed.splitlines()]
    kept = [line for line in lines if line is not None]
    text, dropped = _cap("\n".join(kept), cap)
    return PageView(text, len(raw), len(text), dropped)


def build_large_view(
    found: dict[str, Any], page_key: int, refs: RefMap, secrets: Secrets, cap: int
) -> PageView:
    """The model's view of a very large page from the fast viewport-first scan (large_page.js)."""
    lines = list(found["lines"])
    if found["before"]:
        lines.insert(0, f"[{found['before']} more elements above; scroll up or use find]")
    if found["after"]:
        lines.append(f"[{found['after']} more elements below; scroll down or use find]")
    raw = "\n".join(lines)
    text, dropped = _cap(secrets.redact(refs.rename(page_key, raw)), cap)
    note = "[a very large page: only headings and controls near the viewport are shown]\n"
    return PageView(note + text, len(raw), len(note) + len(text), dropped)


def _compress_line(line: str) -> str | None:
    match = _LINE.match(line)
    if match is None:
        leading = len(line) - len(line.lstrip())
        return " " * (leading // 2) + line.lstrip() if line.strip() else None
    indent, role, rest = len(match["indent"]) // 2, match["role"], _NOISE.sub("", match["rest"])
    clickable = "[cursor=pointer]" in match["rest"]
    if role not in INTERACTIVE_ROLES and not clickable:
        rest = _REF.sub("", rest)
    if role == "generic" and rest in (":", ""):
        return None
    return f"{' ' * indent}- {_SHORT_ROLES.get(role, role)}{rest}"


def _cap(text: str, cap: int) -> tuple[str, int]:
    if len(text) <= cap:
        return text, 0
    cut = text.rfind("\n", 0, cap)
    head = text[: cut if cut > 0 else cap]
    dropped = text.count("\n", len(head)) + 1
    note = f"\n[page snapshot truncated: {dropped} more lines; scroll or use find to see more]"
    return head + note, dropped
