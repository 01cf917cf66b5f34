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


def set_timestamp(stamp: Timestamp, us: int) -> None:
    """Sets a message's Timestamp field in place: three times cheaper than building a
    Timestamp and copying it in, which counts for every event a run emits."""
    stamp.seconds = us // 1_000_000
    stamp.nanos = us % 1_000_000 * 1000


def epoch_ms(us: int) -> float:
    """Tabstack's event timestamps: float milliseconds since the epoch."""
    return us / 1000.0
