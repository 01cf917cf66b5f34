"""Whether anything opened or read the files of a folder: Linux inotify through libc (no extra
dependency), for tests that must show a server never touched a file."""

from __future__ import annotations

import ctypes
import os
import struct
from pathlib import Path

_IN_ACCESS = 0x001
_IN_OPEN = 0x020
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, name length; the name follows


class FolderWatch:
    """Counts opens and reads of `folder` and the files in it, from now until `close`."""

    def __init__(self, folder: Path) -> None:
        self._libc = ctypes.CDLL("libc.so.6", use_errno=True)
        self._fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        if self._libc.inotify_add_watch(self._fd, bytes(folder), _IN_OPEN | _IN_ACCESS) < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {folder}")

    def touched(self) -> list[str]:
        """Names of the files opened or read since the last call ("" for the folder itself)."""
        names: list[str] = []
        while True:
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                return names
            offset = 0
            while offset < len(chunk):
                _, _, _, length = _EVENT.unpack_from(chunk, offset)
                start = offset + _EVENT.size
                names.append(chunk[start : start + length].rstrip(b"\0").decode())
                offset = start + length

    def close(self) -> None:
        os.close(self._fd)
