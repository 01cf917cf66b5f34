"""What the model sees of a page: Playwright's AI-mode snapshot, with our refs, secrets redacted,
compressed and capped.

Compression keeps refs (as "[E12]") only where the model can act (links, buttons, fields,
clickable elements), shortens role names ("h1" for a level-1 heading), drops list bullets, empty
non-interactive lines and label texts that the next control repeats, and halves indentation.
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
    "listitem": "li",
    "textbox": "input",
    "combobox": "select",
    "navigation": "nav",
    "contentinfo": "footer",
}
_LINE = re.compile(r"^(?P<indent> *)- (?P<role>[a-z]+)(?P<rest>.*)$")
_REF = re.compile(r" \[(E\d+)\]")
_LEVEL = re.compile(r" \[level=(\d)\]")
_TEXT = re.compile(r"^ *text: (?P<label>.+)$")
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
    kept = _drop_repeated_labels([line for line in lines if line is not None])
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
        return " " * (leading // 2) + line.lstrip().removeprefix("- ") if line.strip() else None
    indent, role, rest = len(match["indent"]) // 2, match["role"], _NOISE.sub("", match["rest"])
    interactive = role in INTERACTIVE_ROLES or "[cursor=pointer]" in match["rest"]
    if not interactive:
        rest = _REF.sub("", rest).replace(" [active]", "")
        if rest in (":", ""):
            return None  # an anonymous wrapper: its children stay
    short = _SHORT_ROLES.get(role, role)
    level = _LEVEL.search(rest)
    if role == "heading" and level:
        short, rest = f"h{level.group(1)}", _LEVEL.sub("", rest)
    return f"{' ' * indent}{short}{rest}"


def _drop_repeated_labels(lines: list[str]) -> list[str]:
    """Drops "text: Email" next to the control it labels (input "Email"), before or after it."""
    kept: list[str] = []
    for index, line in enumerate(lines):
        match = _TEXT.match(line)
        following = lines[index + 1] if index + 1 < len(lines) else ""
        preceding = kept[-1] if kept else ""
        if match and f'"{match["label"].strip()}"' in following + preceding:
            continue
        kept.append(line)
    return kept


def _cap(text: str, cap: int) -> tuple[str, int]:
    if len(text) <= cap:
        return text, 0
    cut = text.rfind("\n", 0, cap)
    head = text[: cut if cut > 0 else cap]
    dropped = text.count("\n", len(head)) + 1
    note = f"\n[page snapshot truncated: {dropped} more lines; scroll or use find to see more]"
    return head + note, dropped
