"""Uploads as a slow or lying client sends them, over a raw socket: headers that declare one size
and a body that stops short (or a chunked body that goes on), then whatever the server answers
before it closes the connection."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Upload:
    """A POST whose body is sent in parts; `answer()` reads the response."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader, self._writer = reader, writer

    @classmethod
    async def begin(
        cls, port: int, path: str, content_type: str, declared: int | None, first: bytes
    ) -> Upload:
        """Sends the headers (Content-Length `declared`, or chunked when None) and `first`."""
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        length = (
            f"Content-Length: {declared}"
            if declared is not None
            else ("Transfer-Encoding: chunked")
        )
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {content_type}\r\n"
            f"Accept: application/json, text/event-stream\r\n{length}\r\n\r\n"
        )
        upload = cls(reader, writer)
        writer.write(head.encode())
        await upload.send(first, chunked=declared is None)
        return upload

    async def send(self, data: bytes, chunked: bool = False) -> None:
        if chunked:
            data = f"{len(data):x}\r\n".encode() + data + b"\r\n"
        self._writer.write(data)
        await self._writer.drain()

    async def answer(self, within: float = 60.0) -> Answer:
        """The response (read until the server closes the connection or its body is whole)."""
        try:
            async with asyncio.timeout(within):
                status_line = await self._reader.readline()
                headers = {}
                while (line := await self._reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                size = int(headers.get("content-length", "0"))
                body = await self._reader.readexactly(size)
        finally:
            self._writer.close()
        return Answer(int(status_line.split()[1]), headers, body)
