"""TLS settings of a client: which CA to trust and, for mutual TLS, the client's certificate."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Tls:
    """`ca_file`: PEM roots to trust (None: the system's). `cert_file` + `key_file`: a PEM client
    certificate and its key, for servers that require mutual TLS."""

    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None

    def __post_init__(self) -> None:
        if (self.cert_file is None) != (self.key_file is None):
            raise ValueError("a client certificate needs both cert_file and key_file")
