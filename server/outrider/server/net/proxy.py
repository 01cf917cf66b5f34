"""A local forward proxy that every request of a local Chromium goes through, so the network guard
checks the address actually connected to: each hostname is resolved and checked here, and the
connection goes to that checked address (no second lookup, so no DNS rebinding). Redirect hops,
subresources, frames and form posts are all separate requests through it.

Each run's browser context authenticates with its own token (Proxy-Authorization: Basic), which
selects that run's domain policy and where refusals are reported. One request per client
connection (`Connection: close`), which keeps relaying simple.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from outrider.server.net.domains import DomainPolicy
from outrider.server.net.guard import BlockedDestination, NetworkGuard, Unresolvable

_HEAD_LIMIT = 64 * 1024
_HOP_HEADERS = ("proxy-authorization", "proxy-connection", "connection", "keep-alive")


@dataclass(frozen=True)
class Tenant:
    domains: DomainPolicy
    on_block: Callable[[str, str], None]


class GuardedProxy:
    def __init__(self, guard: NetworkGuard) -> None:
        self._guard = guard
        self._tenants: dict[str, Tenant] = {}
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[object]] = set()
        self.port = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        """Stops listening and ends the connections still being relayed (on Python 3.11
        `wait_closed` does not wait for them, and their handlers would outlive the loop)."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for task in self._connections:
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)

    def register(
        self, domains: DomainPolicy, on_block: Callable[[str, str], None]
    ) -> tuple[str, str]:
        """Credentials for one run's browser context; `release` them when the run ends."""
        username, password = "run", secrets.token_urlsafe(24)
        self._tenants[password] = Tenant(domains, on_block)
        return username, password

    def rebind(
        self, password: str, domains: DomainPolicy, on_block: Callable[[str, str], None]
    ) -> None:
        """Gives registered credentials another policy (a session's browser, lent to its next
        run): its context keeps them, the run's rules apply from now on."""
        if password in self._tenants:
            self._tenants[password] = Tenant(domains, on_block)

    def release(self, password: str) -> None:
        self._tenants.pop(password, None)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
            task.add_done_callback(self._connections.discard)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            if len(head) > _HEAD_LIMIT:
                raise ValueError("request head too large")
            await self._handle(head.decode("latin-1"), reader, writer)
        except (
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            OSError,  # ConnectionError, and ENOTCONN when a side is already gone
            ValueError,
        ):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _handle(
        self, head: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        lines = head.split("\r\n")
        method, target, version = lines[0].split(" ", 2)
        headers = [line.split(":", 1) for line in lines[1:] if ":" in line]
        tenant = self._tenant(headers)
        if tenant is None:
            writer.write(
                b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                b'Proxy-Authenticate: Basic realm="outrider"\r\nContent-Length: 0\r\n\r\n'
            )
            return
        url = f"https://{target}/" if method == "CONNECT" else target
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            tenant.domains.check_url(url)
            addresses = await self._guard.resolve(host, port)
        except Unresolvable:
            # Not a refusal: nothing to report (Chromium's own background lookups end here too).
            writer.write(
                b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            return
        except BlockedDestination as refusal:
            tenant.on_block(
                url if method != "CONNECT" else f"https://{host}:{port}", refusal.message
            )
            body = f"Blocked by Outrider's network guard: {refusal.message}\n".encode()
            writer.write(
                b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                b"X-Outrider-Blocked: 1\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                str(addresses[0]), port
            )
        except OSError:
            writer.write(
                b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
            return
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        else:
            upstream_writer.write(
                _origin_form(method, parts.path or "/", parts.query, version, headers)
            )
        await _relay(reader, writer, upstream_reader, upstream_writer)

    def _tenant(self, headers: list[list[str]]) -> Tenant | None:
        for name, value in headers:
            if name.strip().lower() == "proxy-authorization":
                scheme, _, token = value.strip().partition(" ")
                if scheme.lower() == "basic":
                    decoded = base64.b64decode(token).decode(errors="replace")
                    return self._tenants.get(decoded.partition(":")[2])
        return None


def _origin_form(
    method: str, path: str, query: str, version: str, headers: list[list[str]]
) -> bytes:
    target = f"{path}?{query}" if query else path
    kept = [
        f"{name}:{value}" for name, value in headers if name.strip().lower() not in _HOP_HEADERS
    ]
    return (
        "\r\n".join([f"{method} {target} {version}", *kept, "Connection: close"]) + "\r\n\r\n"
    ).encode("latin-1")


async def _relay(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    upstream_reader: asyncio.StreamReader,
    upstream_writer: asyncio.StreamWriter,
) -> None:
    async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
        except OSError:  # ConnectionError, or the socket already shut
            pass
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                sink.write_eof()

    try:
        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))
    finally:
        upstream_writer.close()
