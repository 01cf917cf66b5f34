"""What the model sees of a page: Playwright's AI-mode snapshot, with our refs, secrets redacted,
compressed and capped.

Compression keeps refs (as "[E12]") only where the model can act (links, buttons, fields,
clickable elements), shortens role names ("h1" for a level-1 heading), drops list bullets, empty
non-interactive lines and label texts that the next control repeats, and halves indentation.

Structure the model needs is kept compactly (view_tree): a table is one line per row with its
column names once; a native select is one line ("select") with its options, apart from a
combobox (typed into, marked "editable" when it is); an open modal dialog, or an overlay that
covers the page, comes first and the page behind it is summarised in one line (its first heading
and how much more there is), as it cannot be used until the dialog or overlay is gone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from outrider.server.browser import view_tree
from outrider.server.browser.refs import RefMap
from outrider.server.browser.secrets import Secrets
from outrider.server.browser.view_tree import Node, Overlay

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
SHORT_ROLES = {  # ARIA role -> the shorter name the view writes
    "generic": "div",
    "paragraph": "p",
    "listitem": "li",
    "textbox": "input",
    "navigation": "nav",
    "contentinfo": "footer",
}
_LINE = re.compile(r"^(?P<indent> *)- (?P<role>[a-z]+)(?P<rest>.*)$")
_REF = re.compile(r" \[(E\d+)\]")
_LEVEL = re.compile(r" \[level=(\d)\]")
_TEXT = re.compile(r"^ *text: (?P<label>.+)$")
_NOISE = re.compile(r" \[cursor=pointer\]")
_TEXT_LINE = re.compile(r"^(?P<indent> *)- text: (?P<text>.+)$")
_INLINE_LINE = re.compile(
    r'^(?P<head> *- [a-z]+(?: "(?:[^"\\]|\\.)*")?(?: \[[^\]]*\])*): (?P<text>.+)$'
)

_NAMED_LINE = {
    role: re.compile(
        rf'^ *- {role} "(?P<name>(?:[^"\\]|\\.)*)"(?: \[[a-z]+(?:=[^\]]*)?\])*? \[ref=[a-z0-9]+\]',
        re.MULTILINE,
    )
    for role in ("combobox", "textbox")
}
LARGE_PAGE_NOTE = "[a very large page: only headings and controls near the viewport are shown]"
# The same fast view when the browser is too busy to produce the full snapshot in time.
SLOW_PAGE_NOTE = (
    "[the page could not be read in full in time: only headings and controls near the viewport "
    "are shown; scroll or use find to see more]"
)
# The system rules say that only the dialog or overlay can be used while it is there, so the
# note names it and what lies behind it, no more.
_MODAL_NOTE = "[modal dialog open{behind}]"
_OVERLAY_NOTE = "[an overlay covers the page{behind}: dismiss it or wait]"
PASSWORD_VALUES_JS = """() => Array.from(document.querySelectorAll('input[type=password]'))
  .map(e => e.value).filter(v => v)"""


@dataclass(frozen=True)
class PageFacts:
    """What the snapshot does not say, read from the page by observe.py."""

    modal: str | None = None  # accessible name of an open modal dialog ("" if unnamed)
    combobox_notes: dict[str, str] = field(default_factory=dict)  # accessible name -> note
    field_notes: dict[str, str] = field(default_factory=dict)  # date fields: name -> format
    hidden_texts: frozenset[str] = frozenset()  # texts on the page nobody can see
    overlay: Overlay | None = None  # an overlay covering the page (none with a modal dialog)
    # text the snapshot runs together across line breaks -> its lines
    breaks: dict[str, tuple[str, ...]] = field(default_factory=dict)


def page_facts(found: dict[str, Any]) -> PageFacts:
    """PageFacts from what page_facts.js found."""
    notes = {name: note for name, note in found["comboboxes"].items() if note}
    covering = found["overlay"]
    overlay = Overlay(tuple(covering["texts"]), covering["controls"]) if covering else None
    hidden = frozenset(found["hidden"])
    breaks = {text: tuple(lines) for text, lines in found.get("breaks", {}).items()}
    return PageFacts(found["modal"], notes, found["typed"], hidden, overlay, breaks)


@dataclass(frozen=True)
class PageView:
    text: str  # what the model sees
    raw_size: int
    compressed_size: int
    truncated_lines: int


def build_view(
    raw: str,
    page_key: int,
    refs: RefMap,
    secrets: Secrets,
    cap: int,
    facts: PageFacts | None = None,
) -> PageView:
    """From a raw Playwright AI snapshot to the model's view of the page."""
    facts = facts or PageFacts()
    annotated = _annotate(
        _annotate(_with_breaks(raw, facts.breaks), "combobox", facts.combobox_notes),
        "textbox",
        facts.field_notes,
    )
    roots = view_tree.parse(secrets.redact(refs.rename(page_key, annotated)))
    kept = _dedent(_drop_repeated_labels(_lines(roots, facts)))
    text, dropped = _cap("\n".join(kept), cap)
    return PageView(text, len(raw), len(text), dropped)


def _lines(roots: list[Node], facts: PageFacts) -> list[str]:
    """The view's lines: a modal dialog or covering overlay first, with a one-line summary of the
    page behind it (none of it can be used before it is gone, so listing it costs tokens for
    nothing); the whole page, noted, when the dialog or overlay is not found in the snapshot."""
    render = _Renderer(facts.hidden_texts).render
    if facts.modal is not None:
        note, scoped = _MODAL_NOTE, view_tree.modal_first(roots, facts.modal)
    elif facts.overlay is not None:
        note, scoped = _OVERLAY_NOTE, view_tree.overlay_first(roots, facts.overlay, _is_interactive)
    else:
        return render(roots)
    if scoped is None:
        return [note.format(behind=""), *render(roots)]
    on_top, behind = scoped
    summary = _summary(render(behind))
    if summary:
        summary = f"; behind it: {summary}" if facts.modal is not None else f" ({summary})"
    return [note.format(behind=summary), *render(on_top)]


def _summary(lines: list[str]) -> str:
    """What the page behind holds, in a few words: its first heading, how much else."""
    heading = next((ln.strip() for ln in lines if re.match(r" *h\d ", ln)), None)
    more = len(lines) - (heading is not None)
    if heading is None:
        return f"{more} elements" if more else ""
    rest = f", {more} more elements" if more else ""
    return f"{view_tree.strip_refs(heading)}{rest}"


def _with_breaks(raw: str, breaks: dict[str, tuple[str, ...]]) -> str:
    """The snapshot with the line breaks it lost put back: a text line of several lines
    becomes one text line each (so an error message and the next field's label stay apart), an
    element's inline text gets " / " between its lines."""
    if not breaks:
        return raw
    lines = []
    for line in raw.splitlines():
        text = _TEXT_LINE.match(line)
        inline = text or _INLINE_LINE.match(line)
        parts = breaks.get(_unquoted(inline["text"])) if inline else None
        if inline is None or not parts:
            lines.append(line)
        elif text is not None:
            lines.extend(f"{text['indent']}- text: {part}" for part in parts)
        else:
            lines.append(f"{inline['head']}: {' / '.join(parts)}")
    return "\n".join(lines)


def _unquoted(text: str) -> str:
    if len(text) > 1 and text.startswith('"') and text.endswith('"'):
        try:
            return str(json.loads(text))
        except ValueError:
            return text[1:-1]
    return text


def _annotate(raw: str, role: str, notes: dict[str, str]) -> str:
    """The page's notes after the ref of each `role` line of that name."""
    if not notes:
        return raw

    def annotate(match: re.Match[str]) -> str:
        note = notes.get(match["name"].replace('\\"', '"'))
        return f"{match[0]} {note}" if note else match[0]

    return _NAMED_LINE[role].sub(annotate, raw)


@dataclass(frozen=True)
class _Renderer:
    """Nodes to view lines: structure kept compactly, link targets and unseen text left out."""

    hidden_texts: frozenset[str]

    def render(self, nodes: list[Node]) -> list[str]:
        lines: list[str] = []
        for node in nodes:
            if node.line.lstrip().startswith("- /"):
                continue  # /url: link targets (the link_url tool tells one)
            if self._unseen(node):
                continue
            if node.role in view_tree.TABLES:
                lines.extend(view_tree.table_lines(node, _compress_line))
                continue
            select = view_tree.select_line(node, _compress_line)
            if select is not None:
                lines.append(select)
                continue
            line = _compress_line(node.line)
            if line is not None:
                properties_only = all(c.line.lstrip().startswith("- /") for c in node.children)
                lines.append(line.removesuffix(":") if properties_only else line)
            lines.extend(self.render(_without_title(node)))
        return lines

    def _unseen(self, node: Node) -> bool:
        """Text nobody can see (off-screen, 1px, transparent), with nothing to act on in it."""
        if not self.hidden_texts or any(_is_interactive(n.line) for n in node.walk()):
            return False
        return view_tree.own_text(node.line) in self.hidden_texts


def _without_title(node: Node) -> list[Node]:
    """A dialog's children without the heading that only repeats the dialog's name (the
    dialog's line already says it: `dialog "Sign up"` over `h2 "Sign up"`)."""
    if node.role not in view_tree.DIALOGS or not node.name:
        return node.children
    title = next(
        (n for n in node.walk() if n.role == "heading" and n.name == node.name and not n.children),
        None,
    )
    return node.children if title is None else view_tree.without(node.children, title)


def _is_interactive(line: str) -> bool:
    match = _LINE.match(line)
    return match is not None and (
        match["role"] in INTERACTIVE_ROLES or "[cursor=pointer]" in match["rest"]
    )


def build_large_view(
    found: dict[str, Any],
    page_key: int,
    refs: RefMap,
    secrets: Secrets,
    cap: int,
    why: str = LARGE_PAGE_NOTE,
) -> PageView:
    """The model's view of a very large page from the fast viewport-first scan (large_page.js);
    `why` says to the model why it sees only this much."""
    lines = list(found["lines"])
    if found["before"]:
        lines.insert(0, f"[{found['before']} more elements above; scroll up or use find]")
    if found["after"]:
        lines.append(f"[{found['after']} more elements below; scroll down or use find]")
    raw = "\n".join(lines)
    text, dropped = _cap(secrets.redact(refs.rename(page_key, raw)), cap)
    note = why + "\n"
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
        if rest in (":", "") and role not in view_tree.DIALOGS:
            return None  # an anonymous wrapper: its children stay
    short = SHORT_ROLES.get(role, role)
    level = _LEVEL.search(rest)
    if role == "heading" and level:
        short, rest = f"h{level.group(1)}", _LEVEL.sub("", rest)
    return f"{' ' * indent}{short}{rest}"


def _dedent(lines: list[str]) -> list[str]:
    """The view moved left as far as its shallowest line allows (a leading note aside): a line
    starting with two spaces costs a token more than one starting with one, the structure is the
    same."""
    body = [ln for ln in lines if not ln.startswith("[")]
    shift = min((len(ln) - len(ln.lstrip(" ")) for ln in body), default=0)
    return [ln if ln.startswith("[") else ln[shift:] for ln in lines]


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
