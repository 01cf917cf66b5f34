"""The snapshot as a tree, for the parts of the view that need more than one line at a time:
tables (one line per row), native selects (one line with their options), editable comboboxes
(marked as such), and an open modal dialog or an overlay covering the page (shown first; the page
behind it summarised in one line, as it cannot be used until the dialog or overlay is gone).

Lines stay in Playwright's format ("  - role "name" [E3]: text"); page_model compresses them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

_ROLE = re.compile(r"^ *- (?P<role>[a-z]+)\b")
_NAME = re.compile(r'^ *- [a-z]+ "(?P<name>(?:[^"\\]|\\.)*)"')
_REFS = re.compile(r" ?\[E\d+\]")
_INLINE_TEXT = re.compile(r"^[^:]*?: (?P<text>.+)$")

TABLES = frozenset({"table", "grid", "treegrid"})
ROWS = frozenset({"row"})
CELLS = frozenset({"cell", "gridcell", "columnheader", "rowheader"})
DIALOGS = frozenset({"dialog", "alertdialog"})


@dataclass
class Node:
    line: str
    children: list[Node] = field(default_factory=list)

    @property
    def role(self) -> str:
        match = _ROLE.match(self.line)
        return match["role"] if match else ""

    @property
    def name(self) -> str:
        match = _NAME.match(self.line)
        return match["name"] if match else ""

    @property
    def depth(self) -> int:
        return (len(self.line) - len(self.line.lstrip())) // 2

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            yield from child.walk()


def parse(text: str) -> list[Node]:
    """Nodes by indentation: a line belongs to the nearest less indented line above it."""
    roots: list[Node] = []
    stack: list[tuple[int, Node]] = []
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        node = Node(line)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        (stack[-1][1].children if stack else roots).append(node)
        stack.append((indent, node))
    return roots


# Renderers turn a node into finished view lines, or None to fall back to line compression.
Compress = Callable[[str], "str | None"]


def table_lines(node: Node, compress: Compress) -> list[str]:
    """A table as one line naming its columns ("table: Number | Customer | ..."), then one line
    per row ("INV-1 | Acme | | paid", an empty cell left blank; "row [E8]: ..." when the row
    itself is clickable); cell contents flattened, link targets left out. Header rows after the
    first stay lines of their own ("columns: ...")."""
    pad = " " * node.depth
    head = compress(node.line) or f"{pad}{node.role}:"
    lines = [head if head.endswith(":") else f"{head}:"]
    for child in node.children:  # a caption, say
        text = compress(child.line) if child.role not in ROWS | {"rowgroup"} else None
        if text:
            lines.append(f"{pad} {text.strip()}")
    for row in (n for n in node.walk() if n.role in ROWS):
        cells = [c for c in row.children if c.role in CELLS]
        if not cells:
            continue
        texts = _cells_line([_cell_text(cell, compress) for cell in cells])
        if all(c.role == "columnheader" for c in cells):
            if lines[0].endswith(":"):
                lines[0] = f"{lines[0]} {texts}"  # the first header row: on the table's line
            else:
                lines.append(f"{pad} columns: {texts}")
            continue
        clickable = "[cursor=pointer]" in row.line
        ref = _ref_of(row.line) if clickable else ""
        # under the table's line a row is its cells; only a clickable row needs a label for its ref
        lines.append(f"{pad} row{ref}: {texts}" if ref else f"{pad} {texts}")
    return lines


def _cells_line(texts: list[str]) -> str:
    """Cells split by "|"; an empty cell is a blank between two bars ("a | | c")."""
    return "|".join(f" {text} " if text else " " for text in texts).strip()


def _cell_text(cell: Node, compress: Compress) -> str:
    if not cell.children:
        inline = _INLINE_TEXT.match(_REFS.sub("", cell.line).replace('"', ""))
        return cell.name or (inline["text"].strip() if inline else "")
    parts = []
    for node in list(cell.walk())[1:]:
        if node.line.lstrip().startswith("- /"):
            continue  # /url and other properties
        short = compress(node.line)
        if short:
            parts.append(short.strip().removesuffix(":"))
    return " ".join(parts)


def _ref_of(line: str) -> str:
    found = _REFS.search(line)
    return found.group(0) if found else ""


def select_line(node: Node, compress: Compress) -> str | None:
    """A native select (a combobox listing its options) as one line: current value, then the
    options to choose from."""
    options = [c for c in node.children if c.role == "option"]
    if node.role != "combobox" or not options or len(options) != len(node.children):
        return None
    short = (compress(node.line) or "").rstrip(":")
    head = re.sub(r"^( *)[a-z]+", r"\1select", short, count=1)
    chosen = [o.name for o in options if "[selected]" in o.line]
    names = ", ".join(f'"{o.name}"' for o in options)
    value = f" = {', '.join(chosen)}" if chosen else ""
    return f"{head}{value}; options: {names}"


def modal_first(roots: list[Node], modal_name: str) -> tuple[list[Node], list[Node]] | None:
    """(the modal dialog, everything else) when the page has an open modal dialog."""
    dialogs = [n for root in roots for n in root.walk() if n.role in DIALOGS]
    if not dialogs:
        return None
    named = [d for d in dialogs if d.name == modal_name]
    dialog = (named or dialogs)[-1]
    return [dialog], without(roots, dialog)


@dataclass(frozen=True)
class Overlay:
    """An overlay covering the page, as the page facts tell it: its first texts and how many
    elements in it could be controls (an upper bound)."""

    texts: tuple[str, ...]
    controls: int


def overlay_first(
    roots: list[Node], overlay: Overlay, interactive: Callable[[str], bool]
) -> tuple[list[Node], list[Node]] | None:
    """(the overlay, everything else): the overlay is the deepest node holding all its texts,
    the last such in the page; None when no node holds them or the one found holds more
    controls than the overlay has (then it is not the overlay alone)."""
    wanted = [_plain(text) for text in overlay.texts]
    found: Node | None = None
    for node in (n for root in roots for n in root.walk()):
        inside = _plain("\n".join(n.line for n in node.walk()))
        if all(text in inside for text in wanted) and (found is None or node.depth >= found.depth):
            found = node
    if found is None or found in roots:
        return None
    if sum(interactive(n.line) for n in found.walk()) > overlay.controls:
        return None
    return [found], without(roots, found)


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace('\\"', '"'))


def without(nodes: list[Node], gone: Node) -> list[Node]:
    kept = []
    for node in nodes:
        if node is gone:
            continue
        kept.append(Node(node.line, without(node.children, gone)))
    return kept


_OWN_TEXT = re.compile(
    r'^ *- [a-z]+(?: "(?P<name>(?:[^"\\]|\\.)*)")?(?: \[[^\]]*\])*(?::(?P<text> .*))?$'
)


def own_text(line: str) -> str:
    """A line's text: its inline text ("- paragraph: Hello"), else its name."""
    match = _OWN_TEXT.match(line)
    if match is None:
        return ""
    text = (match["text"] or "").strip()
    if len(text) > 1 and text.startswith('"') and text.endswith('"'):
        text = text[1:-1].replace('\\"', '"')
    return text or match["name"] or ""


def strip_refs(line: str) -> str:
    return _REFS.sub("", line)
