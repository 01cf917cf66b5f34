"""The reference of bench_sse: a bare Starlette SSE endpoint on uvicorn (the same server settings
as Outrider's REST edge) that streams pre-encoded blocks, one `yield` per block.

`python -m bench.sse_bare <blocks-file>` serves `POST /v1/automate` answering with the blocks of
the file (length-prefixed, see `write_blocks`), prints "port <n>" and serves until killed.
"""

from __future__ import annotations

import asyncio
import struct
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route


def write_blocks(path: Path, blocks: list[bytes]) -> None:
    path.write_bytes(b"".join(struct.pack(">I", len(b)) + b for b in blocks))


def read_blocks(path: Path) -> list[bytes]:
    data, blocks, at = path.read_bytes(), [], 0
    while at < len(data):
        (size,) = struct.unpack_from(">I", data, at)
        blocks.append(data[at + 4 : at + 4 + size])
        at += 4 + size
    return blocks


def app_for(blocks: list[bytes]) -> Starlette:
    async def body() -> AsyncIterator[bytes]:
        for index, block in enumerate(blocks):
            yield block
            if index % 64 == 63:
                await asyncio.sleep(0)  # as the emitting agent yields to the loop

    async def automate(request: Request) -> Response:
        await request.body()
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return StreamingResponse(body(), headers=headers, media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/automate", automate, methods=["POST"])])


async def serve(blocks: list[bytes]) -> None:
    config = uvicorn.Config(
        app_for(blocks),
        host="127.0.0.1",
        port=0,
        lifespan="off",
        log_config=None,
        access_log=False,
        server_header=False,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()  # raises why it did not start
        await asyncio.sleep(0.01)
    print(f"port {server.servers[0].sockets[0].getsockname()[1]}", flush=True)
    await task


if __name__ == "__main__":
    asyncio.run(serve(read_blocks(Path(sys.argv[1]))))
