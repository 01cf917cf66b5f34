"""Time as integer microseconds since the epoch, and its protobuf and Tabstack forms."""

from __future__ import annotations

import time

from google.protobuf.timestamp_pb2 import Timestamp


def now_us() -> int:
    return time.time_ns() // 1000


def timestamp(us: int) -> Timestamp:
    stamp = Timestamp()
    stamp.FromMicroseconds(us)
    return stamp


def epoch_ms(us: int) -> float:
    """Tabstack's event timestamps: float milliseconds since the epoch."""
    return us / 1000.0
