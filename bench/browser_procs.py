"""Process-tree measurements from /proc: a process and its descendants (the server, Playwright's
node driver, Chromium and its renderers), their resident memory, and what outlives them."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

PROC = Path("/proc")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024

ProcessId = tuple[int, int]  # (pid, start time in clock ticks): survives pid reuse


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # fields from 3 (state) on


def _parents() -> dict[int, int]:
    """Parent of every live process; zombies (exited, holding nothing) are left out."""
    parents = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None and fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    return parents


def tree(root: int) -> list[int]:
    """`root` and all its live descendants."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        children.setdefault(parent, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def identity(pid: int) -> ProcessId | None:
    fields = _stat_fields(pid)
    return (pid, int(fields[19])) if fields is not None else None


def alive(process: ProcessId) -> bool:
    """Still there (a zombie not yet reaped counts as gone)."""
    fields = _stat_fields(process[0])
    return fields is not None and fields[0] != "Z" and int(fields[19]) == process[1]


def describe(pid: int) -> str:
    """State, name and the start of the command line, for reports."""
    fields = _stat_fields(pid)
    state = fields[0] if fields else "?"
    return f"{pid} [{state}] {command(pid)[:100] or '(no command line)'}"


def kind(pid: int) -> str:
    """A process's kind: "chromium renderer", "chromium gpu-process", "node", "python", ..."""
    words = command(pid).split()
    if not words:
        return "?"
    name = Path(words[0]).name
    types = [w.removeprefix("--type=") for w in words if w.startswith("--type=")]
    subtypes = [w.removeprefix("--utility-sub-type=") for w in words if "utility-sub-type" in w]
    return " ".join([name, *types, *subtypes])


def kinds(root: int) -> dict[str, tuple[int, float]]:
    """Per kind of process in the tree: (how many, their RSS in MB)."""
    counted: dict[str, tuple[int, float]] = {}
    for pid in tree(root):
        count, rss = counted.get(kind(pid), (0, 0.0))
        counted[kind(pid)] = (count + 1, rss + rss_mb(pid))
    return counted


def command(pid: int) -> str:
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _kb(pid: int, file: str, key: str) -> int:
    try:
        for line in (PROC / str(pid) / file).read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


TICKS = os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU seconds all CPUs spent busy since boot (user, nice, system, irq, softirq, steal)."""
    fields = [int(v) for v in (PROC / "stat").read_text().splitlines()[0].split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / TICKS


def cpu_by_part(root: int) -> dict[str, float]:
    """CPU seconds of a tree by part: the root process, Playwright's node driver, Chromium.

    Each process counts its own time plus that of children it has reaped (cutime, cstime), so
    renderers of closed contexts still count, through the Chromium process that reaped them.
    """
    parts = {"python": 0.0, "driver": 0.0, "chromium": 0.0}
    for pid in tree(root):
        fields = _stat_fields(pid)
        if fields is None:
            continue
        own, reaped = int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])
        if pid == root:
            parts["python"] += own / TICKS  # its reaped children are counted below while alive
        elif "chromium" in command(pid):
            parts["chromium"] += (own + reaped) / TICKS
        else:
            parts["driver"] += own / TICKS
    return parts


@dataclass(frozen=True)
class Memory:
    rss_mb: float  # sum of the processes' resident sets (shared pages counted in each)
    pss_mb: float  # proportional set size: shared pages split between the processes sharing them
    uss_mb: float  # private pages only (what would be freed if the processes exited)
    processes: int

    def minus(self, other: Memory) -> Memory:
        return Memory(
            self.rss_mb - other.rss_mb,
            self.pss_mb - other.pss_mb,
            self.uss_mb - other.uss_mb,
            self.processes - other.processes,
        )

    def per(self, count: int) -> Memory:
        return Memory(self.rss_mb / count, self.pss_mb / count, self.uss_mb / count, 0)


def rss_mb(pid: int) -> float:
    """Resident memory of one process."""
    return _kb(pid, "status", "VmRSS:") / 1024


def _rollup(pid: int) -> dict[str, int]:
    """kB figures of /proc/PID/smaps_rollup (Pss, Private_Clean, ...)."""
    try:
        lines = (PROC / str(pid) / "smaps_rollup").read_text().splitlines()[1:]
    except OSError:
        return {}
    return {key.rstrip(":"): int(value) for key, value, *_ in (line.split() for line in lines)}


def memory(root: int) -> Memory:
    rss = pss = uss = 0
    pids = tree(root)
    for pid in pids:
        rss += _kb(pid, "status", "VmRSS:")
        rollup = _rollup(pid)
        pss += rollup.get("Pss", 0)
        uss += rollup.get("Private_Clean", 0) + rollup.get("Private_Dirty", 0)
    return Memory(rss / 1024, pss / 1024, uss / 1024, len(pids))


@dataclass
class PeakSampler:
    """Samples a process tree's memory every `interval` seconds, keeping the peak (by PSS) and
    every process seen (for the leak check)."""

    root: int
    interval: float = 0.25
    peak: Memory = field(default_factory=lambda: Memory(0, 0, 0, 0))
    seen: set[ProcessId] = field(default_factory=set)

    async def run(self) -> None:
        while True:
            sample = await asyncio.to_thread(self._sample)
            if sample.pss_mb > self.peak.pss_mb:
                self.peak = sample
            await asyncio.sleep(self.interval)

    def _sample(self) -> Memory:
        for pid in tree(self.root):
            ident = identity(pid)
            if ident is not None:
                self.seen.add(ident)
        return memory(self.root)


@contextlib.asynccontextmanager
async def sampling(sampler: PeakSampler) -> AsyncIterator[PeakSampler]:
    task = asyncio.create_task(sampler.run())
    try:
        yield sampler
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
