"""Element refs: Playwright's snapshot refs ("e5", "f1e2") shown to the model as "E1", "E2", ...

Numbers are handed out once per (page, Playwright ref) and never reused during a run, so a ref
from an older snapshot never silently points at another element.
"""

from __future__ import annotations

import re

_PLAYWRIGHT_REF = re.compile(r"\[ref=([a-z0-9]+)\]")


class RefMap:
    def __init__(self) -> None:
        self._ours: dict[tuple[int, str], str] = {}
        self._theirs: dict[str, tuple[int, str]] = {}

    def rename(self, page_key: int, snapshot: str) -> str:
        """The snapshot with every [ref=eN] replaced by our short form [E<n>]."""
        return _PLAYWRIGHT_REF.sub(lambda m: f"[{self._ours_for(page_key, m.group(1))}]", snapshot)

    def _ours_for(self, page_key: int, ref: str) -> str:
        key = (page_key, ref)
        if key not in self._ours:
            ours = f"E{len(self._ours) + 1}"
            self._ours[key] = ours
            self._theirs[ours] = key
        return self._ours[key]

    def resolve(self, ours: str) -> tuple[int, str] | None:
        """(page_key, Playwright ref) of a model ref like "E12", or None if never shown."""
        return self._theirs.get(ours.strip().upper())

    def ours(self, page_key: int, ref: str) -> str:
        return self._ours_for(page_key, ref)
