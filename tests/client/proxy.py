"""A TCP proxy on a loopback port whose open connections a test can cut at will, and which can
hold each new connection for a while before connecting it upstream (a slow handshake), or drop
the server's answers (`holding`: lost on the way, as before a connection breaks).

Holding reads the server's side as the HTTP/2 frames gRPC speaks: frames of the connection
itself (SETTINGS, PING, ...) still pass, so a client connects as usual; frames of a call
(HEADERS, DATA) are dropped."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


class CuttableProxy:
    def __init__(self, upstream_port: int, delay: float = 0.0) -> None:
        self.upstream_port = upstream_port
        self.delay = delay
        self.port = 0
        self.cuts = 0
        self.connections = 0
        self.holding = False
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Future[Any]] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    def cut(self) -> None:
        """Drops every open connection (new ones are accepted as before). Counted only when it
        dropped one: under load a client may not have reconnected since the last cut."""
        self.cuts += 1 if self._writers else 0
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def stop(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        await asyncio.sleep(self.delay)
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        self._writers.update((writer, up_writer))
        pumps = [self._pump(reader, up_writer), self._pump(up_reader, writer, to_client=True)]
        task = asyncio.ensure_future(asyncio.gather(*pumps, return_exceptions=True))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, to_client: bool = False
    ) -> None:
        frames = _Frames() if to_client else None
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                if frames is not None:
                    data = b"".join(frames.passing(data, self.holding))
                writer.write(data)
                await writer.drain()
        writer.transport.abort()


class _Frames:
    """Splits a byte stream into HTTP/2 frames (9-byte header: length, type, flags, stream)."""

    def __init__(self) -> None:
        self._pending = b""

    def passing(self, data: bytes, holding: bool) -> Iterator[bytes]:
        """The complete frames of what arrived so far, less calls' frames while holding."""
        self._pending += data
        while len(self._pending) >= 9:
            size = 9 + int.from_bytes(self._pending[:3], "big")
            if len(self._pending) < size:
                return
            frame, self._pending = self._pending[:size], self._pending[size:]
            stream = int.from_bytes(frame[5:9], "big") & 0x7FFFFFFF
            if not (holding and stream):
                yield frame


async def answer_lost(
    proxy: CuttableProxy, call: Awaitable[T], arrived: Callable[[], Awaitable[bool]]
) -> T:
    """Runs `call` while the server's answers are dropped, until `arrived()` (the server acted
    on the request), then cuts the connection: the caller's first attempt sees UNAVAILABLE for
    a request the server did act on. What `call` returns in the end (after its retries)."""
    proxy.holding = True
    task = asyncio.ensure_future(call)
    deadline = asyncio.get_running_loop().time() + 15
    try:
        while not await arrived():
            assert asyncio.get_running_loop().time() < deadline, "the request never arrived"
            await asyncio.sleep(0.02)
    finally:
        proxy.holding = False
        proxy.cut()
    return await task
