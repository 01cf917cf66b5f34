"""Child processes of this test process, read from /proc (no extra dependency)."""

from __future__ import annotations

import os
from pathlib import Path


def _parents() -> dict[int, int]:
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    return parents


def descendants(root: int | None = None) -> list[int]:
    root = os.getpid() if root is None else root
    parents, found, frontier = _parents(), [], [root]
    while frontier:
        pid = frontier.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        found.extend(children)
        frontier.extend(children)
    return found


def command_of(pid: int) -> str:
    try:
        return (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:
        return ""


def chromium_processes(root: int | None = None) -> list[int]:
    """Chromium processes started (directly or not) by `root`, this process by default."""
    return [pid for pid in descendants(root) if "chromium" in command_of(pid).split(" ", 1)[0]]
