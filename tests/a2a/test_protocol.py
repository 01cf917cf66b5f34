"""The A2A edge's protocol behaviour over a fast test-only agent (tests/support/script_agent.py):
the card, authentication and scopes, tenants, the error codes on the wire, contexts, listing,
answers by text, protocol 0.3's method names, and tasks of runs started over REST."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from a2a.client import Client, ClientConfig, create_client
from a2a.types import a2a_pb2 as a2a
from a2a.utils.errors import InvalidParamsError, TaskNotFoundError, UnsupportedOperationError

from outrider.server.a2a_edge.card import agent_card
from outrider.server.security.authn import Keyring
from tests.a2a.support import message, text_of
from tests.rest.support import RestCase, start_rest
from tests.security.tenants import CALLER, Keys
from tests.support.harness import settings_for_tests

pytestmark = pytest.mark.asyncio(loop_scope="module")
V1 = {"A2A-Version": "1.0"}


class Edge:
    def __init__(self, case: RestCase, keys: Keys) -> None:
        self.case, self.keys = case, keys
        self.origin = case.origin
        self.opened: list[httpx.AsyncClient] = []

    async def client(self, principal: str, streaming: bool = False) -> Client:
        http = httpx.AsyncClient(headers=self.keys.header(principal), timeout=30)
        self.opened.append(http)
        config = ClientConfig(streaming=streaming, httpx_client=http)
        return await create_client(self.origin, config)

    async def rpc(
        self, method: str, params: Any, principal: str | None = "alice", **headers: str
    ) -> httpx.Response:
        sent = headers | (self.keys.header(principal) if principal else {})
        body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
        async with httpx.AsyncClient(timeout=30) as http:
            return await http.post(f"{self.origin}/a2a", json=body, headers=sent)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def edge(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Edge]:
    folder = tmp_path_factory.mktemp("a2a-protocol")
    keys = Keys(folder / "keys.toml")
    keys.add("alice", "alpha", CALLER)
    keys.add("bob", "beta", CALLER)
    keys.add("reader", "alpha", ["runs.read"])
    keys.add("starter", "alpha", ["runs.read", "runs.start"])
    case = await start_rest(folder / "data", keys_file=keys.file)
    edge = Edge(case, keys)
    yield edge
    for http in edge.opened:
        await http.aclose()
    await case.stop()


def scripted(plan: dict[str, Any] | None = None, **fields: Any) -> a2a.Message:
    """A browse message for the test-only agent: `plan` is its instructions (steps, ...);
    `fields` set the message's own (context_id, task_id)."""
    return message("t", {"data": plan or {"steps": 1}}, **fields)


async def send(client: Client, sent: a2a.Message, **configuration: Any) -> a2a.Task:
    request = a2a.SendMessageRequest(message=sent)
    for key, value in configuration.items():
        setattr(request.configuration, key, value)
    async for response in client.send_message(request):
        return response.task
    raise AssertionError("no response")


def error_of(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert "error" in body, body
    error: dict[str, Any] = body["error"]
    return error


async def test_the_card_names_skills_interfaces_and_our_auth(edge: Edge, tmp_path: Path) -> None:
    where = f"{edge.origin}/.well-known/agent-card.json"
    async with httpx.AsyncClient() as http:
        served = await http.get(where)
        pure = (await http.get(where, headers=V1)).json()
        again = await http.get(where, headers={"If-None-Match": served.headers["etag"]})
    card = served.json()
    assert again.status_code == 304 and "max-age" in served.headers["cache-control"]
    assert [s["id"] for s in card["skills"]] == ["browse", "research"]
    assert {i["protocolVersion"] for i in card["supportedInterfaces"]} == {"1.0", "0.3"}
    assert card["supportedInterfaces"][0]["url"] == f"{edge.origin}/a2a"
    capabilities = card["capabilities"]
    assert capabilities["streaming"] and capabilities["pushNotifications"]
    assert not capabilities["extendedAgentCard"]
    assert card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] == "Bearer"
    assert card["url"] == f"{edge.origin}/a2a"  # for 0.3 clients, which name no version
    assert "url" not in pure and pure["skills"] == card["skills"]
    pem = {name: tmp_path / f"{name}.pem" for name in ("tls_cert", "tls_key", "tls_client_ca")}
    with_mtls = settings_for_tests(tmp_path, api_keys="k", **pem)
    schemes = agent_card(with_mtls, Keyring(with_mtls), "https://x").security_schemes
    assert set(schemes) == {"bearer", "mtls"}
    without = settings_for_tests(tmp_path)
    assert not agent_card(without, Keyring(without), "http://x").security_schemes


async def test_callers_need_a_key_and_the_method_s_scopes(edge: Edge) -> None:
    started = {"message": {"role": "ROLE_USER", "messageId": "m", "parts": [{"text": "t"}]}}
    nobody = await edge.rpc("SendMessage", started, None, **V1)
    assert nobody.status_code == 401 and nobody.headers["www-authenticate"].startswith("Bearer")
    assert error_of(nobody)["code"] == -32000
    reader = await edge.rpc("SendMessage", started, "reader", **V1)
    assert reader.status_code == 403 and "runs.start" in error_of(reader)["message"]
    answering = {"message": {**started["message"], "taskId": "0123456789abcdef"}}
    starter = await edge.rpc("SendMessage", answering, "starter", **V1)
    assert starter.status_code == 403 and "interactions.answer" in error_of(starter)["message"]


async def test_another_tenant_s_task_does_not_exist(edge: Edge) -> None:
    task = await send(await edge.client("alice"), scripted())
    bob = await edge.client("bob")
    with pytest.raises(TaskNotFoundError):
        await bob.get_task(a2a.GetTaskRequest(id=task.id))
    with pytest.raises(TaskNotFoundError):
        await bob.cancel_task(a2a.CancelTaskRequest(id=task.id))
    listed = await bob.list_tasks(a2a.ListTasksRequest())
    assert task.id not in [t.id for t in listed.tasks]


async def test_errors_have_the_protocol_s_codes(edge: Edge) -> None:
    def sent(*parts: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {"message": {"role": "ROLE_USER", "messageId": "m", "parts": list(parts), **extra}}

    cases: list[tuple[str, Any, int]] = [
        ("GetTask", {"id": "no-such-task"}, -32001),
        ("SendMessage", sent({"text": "t"}, taskId="no-such-task"), -32001),
        ("SendMessage", sent({"raw": "dGNr", "mediaType": "application/pdf"}), -32005),
        ("SendMessage", sent({"data": {"url": "http://x", "colour": "red"}}), -32602),
        ("SendMessage", sent({"data": {"skill": "paint"}}), -32602),
        ("CreateTaskPushNotificationConfig", {"taskId": "x", "url": "http://x"}, -32001),
        ("GetExtendedAgentCard", {}, -32004),
        ("NoSuchMethod", {}, -32601),
    ]
    for method, params, code in cases:
        error = error_of(await edge.rpc(method, params, **V1))
        assert error["code"] == code, (method, params, error)
    too_many = sent({"text": "t"}, {"data": {"url": "http://x", "maxIterations": 500}})
    assert await violations_of(edge, too_many) == [
        ("message.data.max_iterations", "must be between 1 and 100, got 500")
    ]
    mistyped = sent({"text": "t"}, {"data": {
        "url": "http://x", "maxIterations": "many", "trusted_hostnames": "x.example",
        "colour": "red", "options": {"cancelOnDisconnect": "yes", "recipes": "some"},
    }})  # fmt: skip
    assert sorted(await violations_of(edge, mistyped)) == [
        ("message.data.colour", "is not a field here (task, url, data, guardrails, interactive, "
         "maxIterations, maxValidationAttempts, trustedHostnames, unsafeMode, geoTarget)"),
        ("message.data.max_iterations", "must be a whole number"),
        ("message.data.options.cancel_on_disconnect", "must be true or false"),
        ("message.data.options.recipes",
         "must be one of: RECIPE_MODE_OFF, RECIPE_MODE_RECORD, RECIPE_MODE_REPLAY"),
        ("message.data.trusted_hostnames", "must be a list of texts"),
    ]  # fmt: skip
    refused = await edge.rpc("GetTask", {"id": "x"}, **{"A2A-Version": "2.0"})
    assert error_of(refused)["code"] == -32009
    async with httpx.AsyncClient() as http:
        as_text = await http.post(
            f"{edge.origin}/a2a", content=b"{}", headers=edge.keys.header("alice") | V1
        )
    assert as_text.status_code == 415 and error_of(as_text)["code"] == -32005


async def violations_of(edge: Edge, params: Any) -> list[tuple[str, str]]:
    """The field violations of an invalid-params answer (BadRequest), in words of our own."""
    error = error_of(await edge.rpc("SendMessage", params, **V1))
    assert error["code"] == -32602, error
    (bad,) = [d for d in error["data"] if d["@type"].endswith("BadRequest")]
    found = [(v["field"], v["description"]) for v in bad["fieldViolations"]]
    assert not any("parse" in text or "literal" in text for _, text in found), found
    return found


async def test_a_message_id_starts_one_task(edge: Edge) -> None:
    """The messageId is the start's idempotency key: a message/send retried with the same one
    (after a lost answer) is the same task; the id sent with another message starts another."""
    client = await edge.client("alice")
    first = await send(client, scripted(message_id="retried-1"))
    again = await send(client, scripted(message_id="retried-1"))
    other = await send(client, scripted(message_id="retried-2"))
    reused = await send(client, scripted({"steps": 2}, message_id="retried-1"))
    assert first.id == again.id
    assert len({first.id, other.id, reused.id}) == 3
    assert reused.history[0].message_id == "retried-1"


async def test_contexts_join_tasks_and_listing_pages_them(edge: Edge) -> None:
    alice = await edge.client("alice")
    first = await send(alice, scripted(context_id="trip-42"))
    second = await send(alice, scripted(context_id="trip-42"))
    assert first.context_id == second.context_id == "trip-42" and first.id != second.id
    other = await send(alice, scripted())
    assert other.context_id not in ("", "trip-42")
    with pytest.raises(InvalidParamsError, match="belongs to context trip-42"):
        await send(alice, scripted(task_id=first.id, context_id="elsewhere"))
    page = await alice.list_tasks(a2a.ListTasksRequest(context_id="trip-42", page_size=1))
    assert [t.id for t in page.tasks] == [second.id] and page.total_size == 2
    rest = await alice.list_tasks(
        a2a.ListTasksRequest(context_id="trip-42", page_size=1, page_token=page.next_page_token)
    )
    assert [t.id for t in rest.tasks] == [first.id] and rest.next_page_token == ""
    done = await alice.list_tasks(a2a.ListTasksRequest(status=a2a.TASK_STATE_COMPLETED))
    assert {first.id, second.id} <= {t.id for t in done.tasks}
    assert all(t.status.state == a2a.TASK_STATE_COMPLETED for t in done.tasks)


async def test_answers_by_text_and_a_message_while_nothing_is_asked(edge: Edge) -> None:
    alice = await edge.client("alice")
    asked = await send(alice, scripted({"ask_approval": True, "steps": 1}))
    assert asked.status.state == a2a.TASK_STATE_INPUT_REQUIRED
    done = await send(alice, message("approve", task_id=asked.id))
    assert done.status.state == a2a.TASK_STATE_COMPLETED
    assert "Approved by alice" in [text_of(m.parts) for m in done.history]
    form = await send(alice, scripted({"ask_input": True, "steps": 1}))
    with pytest.raises(InvalidParamsError, match="E7"):
        await send(alice, message(data={"values": {"E7": "x"}}, task_id=form.id))
    answered = await send(alice, message("me@example.com", task_id=form.id))  # one field
    assert answered.status.state == a2a.TASK_STATE_COMPLETED
    assert edge.case.agent.received_inputs[-1] == {"E1": "me@example.com"}
    busy = await send(alice, scripted({"steps": 1, "hold": True}), return_immediately=True)
    assert busy.status.state in (a2a.TASK_STATE_SUBMITTED, a2a.TASK_STATE_WORKING)
    with pytest.raises(UnsupportedOperationError, match="asks nothing now"):
        await send(alice, message("hello?", task_id=busy.id))
    cancelled = await alice.cancel_task(a2a.CancelTaskRequest(id=busy.id))
    assert cancelled.status.state == a2a.TASK_STATE_CANCELED


async def test_protocol_0_3_method_names(edge: Edge) -> None:
    sent = {
        "message": {
            "kind": "message",
            "role": "user",
            "messageId": "old-1",
            "parts": [
                {"kind": "data", "data": {"data": {"steps": 1}}},
                {"kind": "text", "text": "t"},
            ],
        }
    }
    task = (await edge.rpc("message/send", sent)).json()["result"]
    assert task["kind"] == "task" and task["status"]["state"] == "completed"
    got = (await edge.rpc("tasks/get", {"id": task["id"]})).json()["result"]
    assert got["id"] == task["id"] and got["status"]["state"] == "completed"
    streamed = await edge.rpc(
        "message/stream", sent | {"message": sent["message"] | {"messageId": "old-2"}}
    )
    events = [
        json.loads(line[5:]) for line in streamed.text.splitlines() if line.startswith("data:")
    ]
    assert events[0]["result"]["kind"] == "task"
    assert events[-1]["result"]["status"]["state"] == "completed"


async def test_a_run_started_over_rest_is_a_task_of_its_own_context(edge: Edge) -> None:
    async with httpx.AsyncClient(headers=edge.keys.header("alice"), timeout=30) as http:
        started = await http.post(
            f"{edge.origin}/v1/automate", json={"task": "t", "data": {"steps": 1}}
        )
    run_id = started.headers["outrider-run"].removeprefix("runs/")
    alice = await edge.client("alice")
    task = await alice.get_task(a2a.GetTaskRequest(id=run_id))
    assert task.context_id == run_id and task.status.state == a2a.TASK_STATE_COMPLETED
    assert text_of(task.history[0].parts) == "t"
    listed = await alice.list_tasks(a2a.ListTasksRequest(context_id=run_id))
    assert [t.id for t in listed.tasks] == [run_id] and listed.total_size == 1
