"""The only module that touches grpc types: channel options, metadata and error translation."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import grpc

from outrider.client._status import decode
from outrider.client.errors import RPCError, error_for
from outrider.client.tls import Tls

_DETAILS_KEY = "grpc-status-details-bin"

# Pings every 30 s keep NATs and proxies from dropping a stream that waits minutes for a human;
# the server permits pings every 10 s and also sends heartbeats on quiet streams. Reconnects
# start after 100 ms; grpc.min_reconnect_backoff_ms stays at its default because gRPC also uses
# it as the least time a connection attempt gets: at 100 ms a busy machine (or any remote server)
# fails the handshake with "connection attempt timed out before receiving SETTINGS frame".
CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    # Quick reconnects after a drop. Not grpc.min_reconnect_backoff_ms: gRPC also takes it as the
    # connect timeout, and at 100 ms a handshake with a loaded server or over a long path fails.
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2_000),
    ("grpc.max_receive_message_length", 64 * 1024 * 1024),
)


def open_channel(target: str, secure: bool, tls: Tls | None = None) -> grpc.aio.Channel:
    if tls is not None:
        return grpc.aio.secure_channel(target, credentials(tls), CHANNEL_OPTIONS)
    if secure:
        return grpc.aio.secure_channel(target, grpc.ssl_channel_credentials(), CHANNEL_OPTIONS)
    return grpc.aio.insecure_channel(target, CHANNEL_OPTIONS)


def credentials(tls: Tls) -> grpc.ChannelCredentials:
    def read(path: Path | None) -> bytes | None:
        return path.read_bytes() if path is not None else None

    return grpc.ssl_channel_credentials(
        root_certificates=read(tls.ca_file),
        private_key=read(tls.key_file),
        certificate_chain=read(tls.cert_file),
    )


def metadata(api_key: str | None) -> Sequence[tuple[str, str]]:
    return (("authorization", f"Bearer {api_key}"),) if api_key else ()


def seconds(timeout: timedelta | None) -> float | None:
    return None if timeout is None else timeout.total_seconds()


def translate(error: grpc.RpcError) -> RPCError:
    """The client's own exception for a failed call, with its google.rpc details."""
    call = error if isinstance(error, grpc.aio.AioRpcError) else None
    if call is None:
        return error_for("INTERNAL", str(error))
    blob = b""
    for key, value in call.trailing_metadata() or ():
        if key == _DETAILS_KEY and isinstance(value, bytes):
            blob = value
    details = decode(blob) if blob else None
    return error_for(call.code().name, call.details() or "", details)


def is_disconnect(error: grpc.RpcError) -> bool:
    """A dropped connection (worth resuming), as opposed to a refusal by the server: UNAVAILABLE,
    or INTERNAL/UNKNOWN raised by the transport itself (the server's own errors always carry
    google.rpc details)."""
    if not isinstance(error, grpc.aio.AioRpcError):
        return False
    if error.code() == grpc.StatusCode.UNAVAILABLE:
        return True
    transport = error.code() in (grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN)
    keys = {key for key, _ in error.trailing_metadata() or ()}
    return transport and _DETAILS_KEY not in keys


class UnaryCalls:
    """Unary calls with the client's metadata and deadline, their errors as client errors."""

    def __init__(self, metadata: Sequence[tuple[str, str]], deadline: timedelta | None) -> None:
        self._metadata = tuple(metadata)
        self._deadline = deadline

    async def _unary(self, method: Any, request: Any) -> Any:
        try:
            return await method(request, metadata=self._metadata, timeout=seconds(self._deadline))
        except grpc.RpcError as error:
            raise translate(error) from None
