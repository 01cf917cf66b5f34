"""TLS for the REST edge: uvicorn's TLS settings, and an HTTP protocol that hands each request the
common name of the client certificate its connection verified."""

from __future__ import annotations

import asyncio
import ssl
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from outrider.server.security.authn import PEER_NAME_STATE
from outrider.server.settings import Settings


def uvicorn_tls(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for uvicorn.Config: none for plaintext."""
    if settings.tls_cert is None or settings.tls_key is None:
        return {}
    options: dict[str, Any] = {
        "ssl_certfile": str(settings.tls_cert),
        "ssl_keyfile": str(settings.tls_key),
        "http": PeerNameH11Protocol,
    }
    if settings.tls_client_ca is not None:
        options |= {"ssl_ca_certs": str(settings.tls_client_ca), "ssl_cert_reqs": ssl.CERT_REQUIRED}
    return options


class PeerNameH11Protocol(H11Protocol):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        name = common_name(transport.get_extra_info("peercert"))
        if name is not None:
            # app_state is copied into every request's scope["state"] on this connection.
            self.app_state = {**self.app_state, PEER_NAME_STATE: name}


def common_name(peercert: Any) -> str | None:
    """The subject CN of a certificate as ssl.SSLSocket.getpeercert() describes it."""
    for rdn in (peercert or {}).get("subject", ()):
        for key, value in rdn:
            if key == "commonName":
                return str(value)
    return None
