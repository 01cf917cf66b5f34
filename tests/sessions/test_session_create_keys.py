"""Idempotent session creates (AIP-155 request_id on gRPC, Idempotency-Key on REST), by the rules
of idempotent run starts: the same principal's same id and request give the same session (a
replay, marked as one), another request with that id is refused, ids are per principal, racing
duplicates make one session, and an ended session's expired id creates a new one."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from outrider.v1 import session_pb2, session_service_pb2
from tests.security.tenants import Edges, Keys, open_edges, two_tenants
from tests.sessions.support import create_request, sessions_stub
from tests.support.harness import rich_error

pytestmark = pytest.mark.timeout(90)
REPLAYED = "outrider-idempotent-replayed"


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    return two_tenants(tmp_path)


@pytest.fixture
async def edges(keys: Keys, tmp_path: Path) -> AsyncIterator[Edges]:
    async for opened in open_edges(tmp_path / "data", keys_file=keys.file):
        yield opened


async def create(
    edges: Edges, keys: Keys, who: str, request_id: str, **request: Any
) -> tuple[session_pb2.Session, bool]:
    """The session CreateSession answers, and whether it is marked as a replay."""
    message = create_request(**request)
    message.request_id = request_id
    call = sessions_stub(edges.channel).CreateSession(message, metadata=keys.bearer(who))
    response = await call
    replayed = dict(await call.initial_metadata()).get(REPLAYED) == "true"
    return response.session, replayed


async def sessions_of(edges: Edges, keys: Keys) -> list[str]:
    """Every session's name, as the admin sees them (server-side truth)."""
    listed = await sessions_stub(edges.channel).ListSessions(
        session_service_pb2.ListSessionsRequest(page_size=100), metadata=keys.bearer("root")
    )
    return [session.name for session in listed.sessions]


async def end(edges: Edges, keys: Keys, name: str) -> None:
    request = session_service_pb2.EndSessionRequest(name=name, reason="done")
    await sessions_stub(edges.channel).EndSession(request, metadata=keys.bearer("alpha-1"))


async def test_the_same_request_id_returns_the_same_session_to_its_principal(
    edges: Edges, keys: Keys
) -> None:
    request_id = str(uuid.uuid4())
    first, replayed = await create(edges, keys, "alpha-1", request_id, idle=60)
    assert not replayed
    again, replayed = await create(edges, keys, "alpha-1", request_id.upper(), idle=60)
    assert replayed and again.name == first.name and again.state == first.state
    others, replayed = await create(edges, keys, "alpha-2", request_id, idle=60)
    assert not replayed and others.name != first.name  # ids are per principal
    with pytest.raises(grpc.aio.AioRpcError) as reused:
        await create(edges, keys, "alpha-1", request_id, idle=61)
    error = rich_error(reused.value)
    assert (error.code, error.reason) == (
        grpc.StatusCode.ALREADY_EXISTS,
        "IDEMPOTENCY_KEY_REUSED",
    )
    assert first.name in error.message
    with pytest.raises(grpc.aio.AioRpcError) as malformed:
        await create(edges, keys, "alpha-1", "not-a-uuid")
    bad = rich_error(malformed.value)
    assert bad.code == grpc.StatusCode.INVALID_ARGUMENT and list(bad.violations) == ["request_id"]
    plain = [await create(edges, keys, "alpha-1", "") for _ in range(2)]
    assert plain[0][0].name != plain[1][0].name and not plain[0][1] and not plain[1][1]
    assert sorted(await sessions_of(edges, keys)) == sorted(
        [first.name, others.name, plain[0][0].name, plain[1][0].name]
    )


async def test_racing_creates_with_one_request_id_make_one_session(
    edges: Edges, keys: Keys
) -> None:
    request_id = str(uuid.uuid4())
    created = await asyncio.gather(*(create(edges, keys, "alpha-1", request_id) for _ in range(8)))
    assert len({session.name for session, _ in created}) == 1
    assert sum(not replayed for _, replayed in created) == 1  # one created it, the rest replayed
    assert await sessions_of(edges, keys) == [created[0][0].name]


async def test_an_ended_session_is_returned_until_its_id_expires(
    keys: Keys, tmp_path: Path
) -> None:
    request_id = str(uuid.uuid4())
    async for edges in open_edges(tmp_path / "long", keys_file=keys.file):
        first, _ = await create(edges, keys, "alpha-1", request_id)
        await end(edges, keys, first.name)
        again, replayed = await create(edges, keys, "alpha-1", request_id)
        assert replayed and again.name == first.name
        assert again.state == session_pb2.SESSION_STATE_ENDED  # as it is, not a second one
    async for edges in open_edges(tmp_path / "short", keys_file=keys.file, idempotency_ttl=0.3):
        held, _ = await create(edges, keys, "alpha-1", request_id)
        await asyncio.sleep(0.5)  # past the window, but the session is still live: it keeps it
        again, replayed = await create(edges, keys, "alpha-1", request_id)
        assert replayed and again.name == held.name
        await end(edges, keys, held.name)
        fresh, replayed = await create(edges, keys, "alpha-1", request_id)  # ended and expired
        assert not replayed and fresh.name != held.name
        assert fresh.state == session_pb2.SESSION_STATE_IDLE


async def test_rest_idempotency_key_returns_the_same_session_and_refuses_another_body(
    edges: Edges, keys: Keys
) -> None:
    body = {"kind": "automate", "idleTimeout": 60, "labels": {"order": "7"}}
    headers = keys.header("alpha-1") | {"Idempotency-Key": '"rest-session-7"'}
    async with httpx.AsyncClient(base_url=edges.origin, headers=headers, timeout=30) as http:
        first = await http.post("/v1/sessions", json=body)
        second = await http.post(
            "/v1/sessions", json=body, headers={"Idempotency-Key": "rest-session-7"}
        )
        reused = await http.post("/v1/sessions", json={**body, "idleTimeout": 90})
        malformed = await http.post("/v1/sessions", json=body, headers={"Idempotency-Key": '"x'})
    assert first.status_code == 201 and "idempotent-replayed" not in first.headers
    assert second.status_code == 200 and second.headers["idempotent-replayed"] == "true"
    assert second.json()["name"] == first.json()["name"]
    assert reused.status_code == 422
    assert reused.json()["error"]["reason"] == "IDEMPOTENCY_KEY_REUSED"
    assert malformed.status_code == 400
    assert "Idempotency-Key" in {v["field"] for v in malformed.json()["error"]["fieldViolations"]}
    assert await sessions_of(edges, keys) == [first.json()["name"]]
