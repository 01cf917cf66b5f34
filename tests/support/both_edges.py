"""One real server with both edges on loopback ports, a gRPC channel and an HTTP client to it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import httpx

from outrider.v1 import interaction_service_pb2_grpc, run_service_pb2, run_service_pb2_grpc
from tests.rest.support import RestCase, start_rest

JSON = {"content-type": "application/json"}


@dataclass
class Edges:
    case: RestCase
    channel: grpc.aio.Channel
    runs: run_service_pb2_grpc.RunServiceStub
    interactions: interaction_service_pb2_grpc.InteractionServiceStub
    http: httpx.AsyncClient

    async def list_names(self) -> list[str]:
        """Every run's name, as gRPC ListRuns pages through them; REST must list the same."""
        names, token = [], ""
        while True:
            page = await self.runs.ListRuns(
                run_service_pb2.ListRunsRequest(page_size=50, page_token=token)
            )
            names += [r.name for r in page.runs]
            token = page.next_page_token
            if not token:
                break
        rest_names, token = [], ""
        while True:
            listed = await self.http.get("/v1/runs", params={"pageSize": 1000, "pageToken": token})
            assert listed.status_code == 200, listed.text
            rest_names += [r["name"] for r in listed.json()["runs"]]
            token = listed.json()["nextPageToken"]
            if not token:
                break
        assert rest_names == names
        return names


@asynccontextmanager
async def both_edges(data_dir: Path, **overrides: Any) -> AsyncIterator[Edges]:
    case = await start_rest(data_dir, **overrides)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{case.grpc.port}")
    # JSON bodies sent as raw bytes are still declared JSON (POSTs must be application/json).
    http = httpx.AsyncClient(base_url=case.origin, timeout=30, headers=JSON)
    try:
        yield Edges(
            case,
            channel,
            run_service_pb2_grpc.RunServiceStub(channel),
            interaction_service_pb2_grpc.InteractionServiceStub(channel),
            http,
        )
    finally:
        await http.aclose()
        await channel.close()
        await case.stop()
