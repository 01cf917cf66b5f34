"""Idempotent session creates across replicas sharing PostgreSQL: racing creates with one request
id on two workers make one session (the store's unique index decides), and an API-only replica
relays a REST create with its Idempotency-Key (not a UUID) to the worker that holds it, whose
retry returns that session."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

import grpc
import httpx
import pytest

from outrider.v1 import session_service_pb2 as ss
from tests.sessions.support import create_request, sessions_stub
from tests.support.harness import ServerProcess

CLUSTER = {"OUTRIDER_CLUSTER_SECRET": "session-keys-secret-" + "k" * 24}
pytestmark = pytest.mark.timeout(120)


async def names(channel: grpc.aio.Channel) -> list[str]:
    listed = await sessions_stub(channel).ListSessions(ss.ListSessionsRequest(page_size=100))
    return [session.name for session in listed.sessions]


async def test_creates_with_one_request_id_make_one_session_across_replicas(
    start_replica: Callable[..., ServerProcess],
) -> None:
    workers = [start_replica(**CLUSTER) for _ in range(2)]
    api = start_replica(rest=True, OUTRIDER_ROLE="api", **CLUSTER)
    for process in (*workers, api):
        process.drain()
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{p.port}") for p in workers]
    try:
        request = create_request(idle=120)
        request.request_id = str(uuid.uuid4())
        calls = [sessions_stub(channels[i % 2]).CreateSession(request) for i in range(8)]
        created = await asyncio.gather(*calls)
        assert len({response.session.name for response in created}) == 1
        assert await names(channels[0]) == [created[0].session.name]
        body = {"kind": "research", "idleTimeout": 60}
        headers = {"Idempotency-Key": '"order-7"'}
        origin = f"http://127.0.0.1:{api.rest_port}"
        async with httpx.AsyncClient(base_url=origin, headers=headers, timeout=60) as http:
            first = await http.post("/v1/sessions", json=body)
            again = await http.post("/v1/sessions", json=body)
            reused = await http.post("/v1/sessions", json={**body, "idleTimeout": 61})
        assert first.status_code == 201, first.text
        assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
        assert again.json()["name"] == first.json()["name"]
        assert reused.status_code == 422
        assert sorted(await names(channels[1])) == sorted(
            [created[0].session.name, first.json()["name"]]
        )
    finally:
        for channel in channels:
            await channel.close()
