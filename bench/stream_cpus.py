"""CPU pinning: servers on one set of CPUs, clients on the others, so that runs are repeatable.

Unpinned on a 2-core machine, the scheduler moves the event-loop and gRPC poller threads of both
processes between the cores from run to run, and the rates swing by a factor of two.
"""

from __future__ import annotations

import os

Cpus = frozenset[int] | None


def split_cpus() -> tuple[Cpus, Cpus]:
    """(server CPUs, client CPUs): the first allowed CPU for the server, the rest for clients;
    (None, None) when there is only one CPU."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None, None
    return frozenset(allowed[:1]), frozenset(allowed[1:])


def pin(cpus: Cpus) -> None:
    """Restricts this process (and the threads it starts later) to `cpus`."""
    if cpus:
        os.sched_setaffinity(0, cpus)
