"""Ports a test picks before it starts what listens on them (a server told its port, an IdP, a
PostgreSQL cluster). Binding port 0 and closing would hand back a port from the kernel's
ephemeral range, which every outgoing connection of the suite (Chromium, PostgreSQL clients,
gRPC) also draws from: one of them could take it before the listener binds. These come from
below that range, at random, and are checked free when picked."""

from __future__ import annotations

import random
import socket
from pathlib import Path

_LOWEST = 20_000


def _first_ephemeral() -> int:
    """The kernel's first ephemeral port (Linux), or the IANA range's start elsewhere."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 49_152


def free_port(host: str = "127.0.0.1") -> int:
    """A port on `host` nothing listens on, outside the ephemeral range."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    highest = max(_first_ephemeral() - 1, _LOWEST + 1_000)
    for _ in range(200):
        port = random.randint(_LOWEST, highest)
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            try:
                probe.bind((host, port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port on {host} in {_LOWEST}-{highest}")
