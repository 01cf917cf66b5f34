"""One-time answer links (core/interactions/answer_links.py) through both edges: who is shown a
link, that it is never stored, that it answers its own question once and nothing else, and
settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import httpx
import pytest

from outrider.server.core.interactions.answer_links import without_token
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import run_service_pb2 as rs
from tests.security.tenants import CALLER, Edges, Keys, open_edges
from tests.support.harness import eventually
from tests.support.requests import automate_request


@pytest.fixture
async def edges(tmp_path: Path) -> AsyncIterator[tuple[Edges, Keys]]:
    keys = Keys(tmp_path / "keys.toml")
    keys.add("alice", "alpha", CALLER)
    keys.add("reader", "alpha", ["runs.read"])
    keys.add("bob", "beta", CALLER)
    async for opened in open_edges(
        tmp_path / "data", keys_file=keys.file, public_url="https://ops.example/outrider/"
    ):
        yield opened, keys


async def asking(edges: Edges, keys: Keys | None) -> tuple[str, ip.Interaction]:
    """A run of alice's waiting for an answer, and its question as alice lists it."""
    metadata = keys.bearer("alice") if keys else ()
    request = automate_request(steps=1, ask_input=True)
    created = await edges.runs.CreateRun(
        rs.CreateRunRequest(automate=request.params, options=request.options), metadata=metadata
    )
    found: list[ip.Interaction] = []

    async def pending() -> bool:
        listed = await edges.interactions.ListInteractions(
            isv.ListInteractionsRequest(run=created.run.name), metadata=metadata
        )
        found[:] = listed.interactions
        return bool(found)

    await eventually(pending)
    return created.run.name, found[0]


async def test_a_caller_who_may_answer_is_shown_the_link_and_a_reader_is_not(
    edges: tuple[Edges, Keys],
) -> None:
    server, keys = edges
    run, interaction = await asking(server, keys)
    link = interaction.answer_url
    assert link.startswith("https://ops.example/outrider/console/answer/"), link
    got = await server.interactions.GetInteraction(
        isv.GetInteractionRequest(name=interaction.name), metadata=keys.bearer("alice")
    )
    assert got.interaction.answer_url == link  # the same link for every caller shown it
    read = await server.interactions.GetInteraction(
        isv.GetInteractionRequest(name=interaction.name), metadata=keys.bearer("reader")
    )
    assert read.interaction.answer_url == ""  # it could not answer: no link either
    stream = server.runs.StreamRunEvents(
        rs.StreamRunEventsRequest(name=run), metadata=keys.bearer("alice")
    )
    async for response in stream:
        asked = response.event.automate.interactive_form_data_request
        if asked.request_id:
            assert asked.answer_url == link
            break
    stream.cancel()
    async with httpx.AsyncClient(base_url=server.origin) as http:
        bare = interaction.name.removeprefix("interactions/")
        rest = await http.get(f"/v1/interactions/{bare}", headers=keys.header("alice"))
        assert rest.json()["answerUrl"] == link
        for opted, shown in (("false", False), ("true", True)):  # the seed's shape unless opted
            headers = keys.header("alice") | {"X-Outrider-Approval-Events": opted}
            data = await request_event_data(http, run, headers)
            assert ("answerUrl" in data) is shown and (link in data) is shown
    server.case.grpc.store.flush()
    for path in server.case.grpc.settings.data_dir.rglob("*"):
        if path.is_file():
            assert link.split("/answer/")[1].encode() not in path.read_bytes(), path


async def request_event_data(http: httpx.AsyncClient, run: str, headers: dict[str, str]) -> str:
    """The data line of the form-data request event of the run's REST event stream."""
    path = f"/v1/runs/{run.removeprefix('runs/')}/events"
    async with http.stream("GET", path, headers=headers) as response:
        asked = False
        async for line in response.aiter_lines():
            asked = asked or line == "event: interactive:form_data:request"
            if asked and line.startswith("data: "):
                return line
    raise AssertionError("no form-data request event")


async def test_the_link_answers_its_own_question_once(edges: tuple[Edges, Keys]) -> None:
    server, keys = edges
    _, interaction = await asking(server, keys)
    token = interaction.answer_url.rsplit("/", 1)[1]
    body, mac = token.split(".")
    async with httpx.AsyncClient(base_url=server.origin, timeout=30) as http:
        for forged in (f"{body}.{mac[:-3]}AAA", f"{body[:-2]}AA.{mac}", "nothing", "a.b.c"):
            assert (await http.get(f"/console/answer/{forged}")).status_code == 404, forged
        page = await http.get(f"/console/answer/{token}")
        assert page.status_code == 200 and "Email" in page.text
        refused = await http.post(  # a page of another site cannot post it
            f"/console/answer/{token}",
            data={"field:E1": "x@example.com"},
            headers={"Origin": "https://evil.example"},
        )
        assert refused.status_code == 403
        answered = await http.post(
            f"/console/answer/{token}",
            data={"field:E1": "me@example.com"},
            headers={"Origin": server.origin},
        )
        assert answered.status_code == 200 and "Answered by answer-link" in answered.text
        again = await http.post(
            f"/console/answer/{token}",
            data={"field:E1": "me@example.com"},
            headers={"Origin": server.origin},
        )
        assert again.status_code == 410 and "works once" in again.text
    got = await server.interactions.GetInteraction(
        isv.GetInteractionRequest(name=interaction.name), metadata=keys.bearer("alice")
    )
    assert got.interaction.state == ip.INTERACTION_STATE_RESOLVED
    assert got.interaction.resolved_by == "answer-link" and got.interaction.answer_url == ""
    assert server.case.agent.received_inputs[-1] == {"E1": "me@example.com"}


async def test_another_tenant_cannot_answer_with_its_key_what_it_cannot_see(
    edges: tuple[Edges, Keys],
) -> None:
    server, keys = edges
    _, interaction = await asking(server, keys)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await server.interactions.GetInteraction(
            isv.GetInteractionRequest(name=interaction.name), metadata=keys.bearer("bob")
        )
    assert refused.value.code() == grpc.StatusCode.NOT_FOUND


async def test_without_the_console_no_link_is_issued(tmp_path: Path) -> None:
    async for server in open_edges(tmp_path, console=False):
        _, interaction = await asking(server, None)
        assert interaction.answer_url == ""
        async with httpx.AsyncClient(base_url=server.origin) as http:
            missing = await http.get("/console/")
            assert missing.status_code == 404 and missing.json()["error"]["reason"] == "NOT_FOUND"


async def test_streams_of_a_revoked_key_end_and_carry_no_new_link(
    edges: tuple[Edges, Keys],
) -> None:
    """Removing a key (then SIGHUP) ends its open gRPC and REST streams at their next batch or
    heartbeat (5 s here) with CREDENTIAL_REVOKED: they carried answer links, bearer
    capabilities that the key's holder must stop receiving."""
    server, keys = edges
    keys.add("pager", "alpha", CALLER)
    assert server.case.grpc.keyring.reload()
    run, interaction = await asking(server, keys)
    grpc_stream = server.runs.StreamRunEvents(
        rs.StreamRunEventsRequest(name=run), metadata=keys.bearer("pager")
    )
    async for response in grpc_stream:
        if response.event.automate.interactive_form_data_request.answer_url:
            break
    headers = keys.header("pager") | {"X-Outrider-Approval-Events": "true"}
    path = f"/v1/runs/{run.removeprefix('runs/')}/events"
    async with (
        httpx.AsyncClient(base_url=server.origin, timeout=30) as http,
        http.stream("GET", path, headers=headers) as rest_stream,
    ):
        lines = rest_stream.aiter_lines()
        async for line in lines:
            if line.startswith("data: ") and interaction.answer_url in line:
                break
        keys.remove("pager")
        assert server.case.grpc.keyring.reload()
        after = [line async for line in lines]
    assert "event: error" in after and "CREDENTIAL_REVOKED" in "\n".join(after)
    assert not any("answerUrl" in line for line in after)
    with pytest.raises(grpc.aio.AioRpcError) as ended:
        async for response in grpc_stream:
            assert not response.HasField("event"), "an event after the key was removed"
    assert ended.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "no longer valid" in str(ended.value.details())


def test_logs_show_a_link_path_without_its_token() -> None:
    for path in ("/console/answer/abc.def", "/outrider/console/answer/abc.def"):
        assert without_token(path).endswith("/console/answer/…") and "abc" not in without_token(
            path
        )
    assert without_token("/console/runs/r1") == "/console/runs/r1"
