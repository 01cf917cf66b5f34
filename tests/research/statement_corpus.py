"""The statement check's corpus (tests/fixtures/statements): correct, cited statements that must
be kept, false or uncited ones that must be removed, and sentences with one false part. Scored
as a detector of false statements: precision (of what it removed, how much was false) and
recall (of what was false, how much it removed)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml

from outrider.server.research.citations import CheckedReport, check_citations
from tests.support.harness import REPO_ROOT

CORPUS = REPO_ROOT / "tests" / "fixtures" / "statements"


@cache
def load(name: str) -> Any:
    return yaml.safe_load((CORPUS / f"{name}.yaml").read_text())


def check(report: str) -> CheckedReport:
    """The report as the research agent publishes it, citing the corpus pages."""
    pages: dict[str, str] = load("pages")
    return check_citations(report, {i: f"https://pages.example/{i}" for i in pages}, {}, pages)


def body(text: str) -> str:
    """A checked report without the note that opens it when its opening answer went."""
    return text.split("\n\n", 1)[1] if text.startswith("> **Note:**") else text


def kept_whole(report: str) -> bool:
    checked = check(report)
    return checked.text == report and not checked.unsupported


def removed_whole(report: str) -> bool:
    """Whether the report's statement (its last line) went, and only it."""
    checked = check(report)
    leftover = "".join(report.splitlines(keepends=True)[:-1])
    return bool(checked.unsupported) and body(checked.text) == leftover


@dataclass(frozen=True)
class Score:
    correct: int  # correct statements
    kept: int  # of them, kept whole
    false: int  # false or uncited statements
    removed: int  # of them, removed

    @property
    def precision(self) -> float:
        wrongly = self.correct - self.kept
        return self.removed / (self.removed + wrongly) if self.removed + wrongly else 1.0

    @property
    def recall(self) -> float:
        return self.removed / self.false if self.false else 1.0

    def summary(self) -> str:
        return (
            f"statement check on tests/fixtures/statements: precision {self.precision:.3f}, "
            f"recall {self.recall:.3f} (kept {self.kept} of {self.correct} correct statements, "
            f"removed {self.removed} of {self.false} false ones)"
        )


def score() -> Score:
    correct = [entry["report"] for entry in load("kept")]
    false = [entry["report"] for entry in load("removed")]
    return Score(
        correct=len(correct),
        kept=sum(kept_whole(report) for report in correct),
        false=len(false),
        removed=sum(removed_whole(report) for report in false),
    )
