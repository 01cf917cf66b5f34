"""How long a graceful stop may take, so both edges keep their streams open exactly that long.

After SIGTERM, runs get the grace to finish; then the rest are cancelled, write their terminal
events and every watcher receives them, within `ending_bound`; watchers always get at least
LAST_DELIVERY after the last run ended.
"""

from __future__ import annotations

LAST_DELIVERY = 1.0


def ending_bound(grace: float) -> float:
    """After the grace: how long cancelled runs may take to write their terminal events and
    watchers to receive them."""
    return max(grace, 5.0)


def longest_shutdown(grace: float) -> float:
    """The longest `RunManager.shutdown(grace)` takes; edges keep streams open that long."""
    return grace + ending_bound(grace) + LAST_DELIVERY
