"""The report as a fact-checking editor leaves it: what its cited pages do not support is struck
(support.py says what is), the least that is false (clauses.py: a false clause goes, the rest of
its sentence stays when it still reads as one), and every removal is counted. When the report's
opening answer goes, a note at its top says so and how many statements went."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from outrider.server.research.blocks import BULLET, blocks, is_rule, not_a_statement
from outrider.server.research.clauses import trimmed
from outrider.server.research.sentences import MARKER, cited_ids, sentence_spans
from outrider.server.research.support import SupportCheck

_TIGHT = re.compile(r"\s+([.,;:!?])")  # "claim [S1]." without its marker: "claim."


def keep_supported(text: str, texts: Mapping[str, str]) -> tuple[str, list[str]]:
    """`text` without the statements its cited pages do not support, and those statements (as
    written, their markers left out). `texts`: source id -> the text (and title) a citation of
    it rests on."""
    editor = _Editor(SupportCheck(texts, text))
    kept: list[str] = []
    parts = blocks(text)
    gone = False  # the last block went: a blank line after it would double the one before
    for index, (block, verbatim) in enumerate(parts):
        following = parts[index + 1][0] if index + 1 < len(parts) else ""
        if gone and not block.strip() and (not kept or not kept[-1].strip()):
            continue
        if verbatim or not_a_statement(block) or is_rule(following):  # a table's header
            rest: str | None = block
        else:
            rest = editor.edit(block)
        gone = rest is None
        if rest is not None:
            kept.append(rest)
    edited = "".join(kept)
    if editor.opening_lost:
        edited = with_note(edited, len(editor.removed))
    return edited, editor.removed


@dataclass
class _Editor:
    check: SupportCheck
    removed: list[str] = field(default_factory=list)
    opening_lost: bool = False  # the report's first statement was removed
    _opened: bool = False  # its first statement was seen

    def edit(self, block: str) -> str | None:
        """The block without its unsupported statements; None when none of it is left."""
        bullet = BULLET.match(block)
        prefix = bullet.group(0) if bullet else ""
        body = block[len(prefix) :]
        flat = body.rstrip("\n").replace("\n", " ")  # the same offsets, on one line
        row = body.lstrip().startswith("|")
        spans = [(0, len(flat))] if row else sentence_spans(flat)
        changes = []
        for start, end in spans:
            replacement = self._edited(flat[start:end], row)
            if replacement != flat[start:end]:
                changes.append((start, end, replacement))
        if not changes:
            return block
        for start, end, replacement in reversed(changes):
            body = body[:start] + replacement + body[end:]
        if not body.strip():
            return None
        ending = "\n" if block.endswith("\n") else ""
        return prefix + " ".join(body.split()) + ending

    def _edited(self, sentence: str, row: bool) -> str:
        """The sentence, what is left of it, or "" when it goes."""
        false = self.check.unsupported(sentence, row)
        opening = not self._opened and (false or bool(cited_ids(sentence)))
        self._opened = self._opened or opening
        if not false:
            return sentence
        trim = None if row else trimmed(sentence, self.check)
        if trim is not None:
            self.removed += trim[1]
            return trim[0]
        self.opening_lost = self.opening_lost or opening
        self.removed.append(_bare(sentence))
        return ""


def _bare(sentence: str) -> str:
    """A removed sentence as the writer wrote it, without its citation markers."""
    return _TIGHT.sub(r"\1", " ".join(MARKER.sub("", sentence).split()))


def with_note(report: str, removed: int) -> str:
    """The report with a note under its title: its opening answer and `removed` statements in
    all were removed because its sources do not support them."""
    unsupported = "that the report's sources do not support"
    if removed == 1:
        said = f"1 statement {unsupported} was removed: its opening answer."
    else:
        said = f"{removed} statements {unsupported} were removed, its opening answer among them."
    note = f"> **Note:** {said}\n\n"
    lines = report.splitlines(keepends=True)
    at = 0
    while at < len(lines) and not lines[at].strip():
        at += 1
    if at < len(lines) and lines[at].startswith("# "):
        at += 1
        while at < len(lines) and not lines[at].strip():
            at += 1
        note = "\n" + note if lines[at - 1].strip() else note
    return "".join(lines[:at]) + note + "".join(lines[at:])
