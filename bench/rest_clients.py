"""One benchmark client process: `python -m bench.rest_clients grpc|sse <port> <events>` starts
a run, counts its events until `done`, and prints JSON {"events", "seconds"} where seconds runs
from the first event to the last."""

from __future__ import annotations

import asyncio
import json
import sys
import time

import grpc
import httpx

from outrider.v1 import params_pb2, run_service_pb2, run_service_pb2_grpc


async def over_grpc(port: int, events: int) -> tuple[int, float]:
    request = run_service_pb2.AutomateRequest(params=params_pb2.AutomateParams(task="bench"))
    request.params.data.update({"events": events})
    count, first = 0, 0.0
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        async for response in run_service_pb2_grpc.RunServiceStub(channel).Automate(request):
            if response.HasField("event"):
                count += 1
                first = first or time.perf_counter()
    return count, time.perf_counter() - first


async def over_sse(port: int, events: int) -> tuple[int, float]:
    body = {"task": "bench", "data": {"events": events}}
    count, first = 0, 0.0
    async with (
        httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as http,
        http.stream("POST", "/v1/automate", json=body) as response,
    ):
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                json.loads(line[6:])  # a client decodes every event
                count += 1
                first = first or time.perf_counter()
    return count, time.perf_counter() - first


def main() -> None:
    kind, port, events = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    client = over_grpc if kind == "grpc" else over_sse
    count, seconds = asyncio.run(client(port, events))
    print(json.dumps({"events": count, "seconds": seconds}), flush=True)


if __name__ == "__main__":
    main()
