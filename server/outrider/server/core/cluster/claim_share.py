"""How many of the runs a lost replica left this replica claims: its part of an even spread
over the live replicas that execute runs, least loaded first, never past the runs any of them
may hold (slots plus queue). Every replica computes the same spread from the same facts (each
one's active runs and room, in the same order), so together they claim each run once without
talking to each other; what one leaves (full, or slower to look) stays for the others, and for
anyone with room once it has waited a few more sweeps (a replica that does not sweep)."""

from __future__ import annotations

from outrider.server.core.storage import WorkerLoad

# Sweeps a lost run may wait for the replica the spread gave it before anyone with room
# claims it (two looks make it stale; these are on top).
PATIENCE = 3


def share_of(orphans: int, loads: list[WorkerLoad], my_room: int) -> int:
    """This replica's part of `orphans` runs: each goes, one at a time, to the replica with the
    fewest active runs that still has room (ties: the earlier in `loads`)."""
    mine = next((i for i, load in enumerate(loads) if load.mine), None)
    if mine is None:  # not listed (its row is being rewritten): nobody to share with known
        return min(orphans, my_room)
    rooms = [_room(load) for load in loads]
    rooms[mine] = min(rooms[mine], my_room)
    given = [0] * len(loads)
    for _ in range(orphans):
        open_ = [i for i in range(len(loads)) if given[i] < rooms[i]]
        if not open_:
            break
        least = min(open_, key=lambda i: (loads[i].active + given[i], i))
        given[least] += 1
    return given[mine]


def _room(load: WorkerLoad) -> int:
    if not load.capacity:  # it did not say (an earlier version): as much as it is given
        return 1 << 30
    return max(load.capacity - load.active, 0)
