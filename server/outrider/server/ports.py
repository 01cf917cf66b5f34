"""One port, one server: listening sockets bound exclusively, and a clear error when a port is
taken.

Without this, gRPC binds with SO_REUSEPORT, so a second Outrider on the same port starts happily
and the kernel splits new connections between two servers (and two databases).
"""

from __future__ import annotations

import errno
import socket
from typing import Any


class PortInUse(Exception):
    """A listener could not bind its port; the message says which and what to do."""

    def __init__(self, what: str, host: str, port: int, setting: str, detail: str) -> None:
        super().__init__(
            f"cannot listen for {what} on {host}:{port}: {detail}. Another process (perhaps "
            f"another Outrider) holds it; stop that one or choose another port with {setting}."
        )


def check_free(what: str, host: str, port: int, setting: str) -> None:
    """Raises PortInUse unless every address `host` resolves to can bind `port` exclusively.

    A server that binds several addresses (e.g. "localhost": 127.0.0.1 and ::1) would otherwise
    start when only some of them are free."""
    if port == 0:
        return
    for sock in bind_listeners(what, host, port, setting):
        sock.close()


def bind_listeners(what: str, host: str, port: int, setting: str) -> list[socket.socket]:
    """Listening TCP sockets on every address of `host` (the first one only for port 0, whose
    free port differs per address), bound without SO_REUSEPORT."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as error:
        raise PortInUse(what, host, port, setting, f"cannot resolve the host ({error})") from None
    addresses = list(dict.fromkeys((family, address) for family, _, _, _, address in infos))
    listeners: list[socket.socket] = []
    try:
        for family, address in addresses[:1] if port == 0 else addresses:
            listeners.append(_listen(family, address))
    except OSError as error:
        for sock in listeners:
            sock.close()
        detail = "the port is in use" if error.errno == errno.EADDRINUSE else str(error)
        raise PortInUse(what, host, port, setting, detail) from None
    return listeners


def _listen(family: int, address: tuple[Any, ...]) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # not REUSEPORT
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock
