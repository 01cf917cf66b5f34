"""A2A push notifications with the official a2a-sdk client (the card declares them: see
test_protocol.py): a task's
push configs are created, read, listed and deleted by whoever may read the task (another
tenant's task does not exist), refused for private addresses; a task's end is pushed to the
config's URL as a statusUpdate, with the config's Authorization and token, through the outbox."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from a2a.client import Client
from a2a.types import a2a_pb2 as a2a
from a2a.utils.errors import InvalidParamsError, TaskNotFoundError

from tests.a2a.support import message
from tests.a2a.test_protocol import Edge
from tests.rest.support import start_rest
from tests.security.tenants import CALLER, Keys
from tests.support.harness import eventually
from tests.webhooks.receivers import Receiver
from tests.webhooks.support import webhook_settings

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def edge(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Edge]:
    folder = tmp_path_factory.mktemp("a2a-push")
    keys = Keys(folder / "keys.toml")
    keys.add("alice", "alpha", CALLER)
    keys.add("bob", "beta", CALLER)
    case = await start_rest(folder / "data", keys_file=keys.file, webhooks=webhook_settings())
    edge = Edge(case, keys)
    yield edge
    for http in edge.opened:
        await http.aclose()
    await case.stop()


def scripted(**plan: Any) -> a2a.Message:
    return message("t", {"data": plan or {"steps": 1}})


async def send(client: Client, sent: a2a.Message, **configuration: Any) -> a2a.Task:
    request = a2a.SendMessageRequest(message=sent)
    for key, value in configuration.items():
        getattr(request.configuration, key).CopyFrom(value)
    async for response in client.send_message(request):
        return response.task
    raise AssertionError("no response")


def config(task_id: str, url: str, config_id: str = "") -> a2a.TaskPushNotificationConfig:
    return a2a.TaskPushNotificationConfig(
        task_id=task_id,
        id=config_id,
        url=url,
        token="tok-1",
        authentication=a2a.AuthenticationInfo(scheme="Bearer", credentials="s3cret"),
    )


async def test_push_configs_belong_to_whoever_reads_the_task(edge: Edge) -> None:
    alice, bob = await edge.client("alice"), await edge.client("bob")
    task = await send(alice, scripted())
    created = await alice.create_task_push_notification_config(
        config(task.id, "https://93.184.215.14/hook", "first")
    )
    assert (created.id, created.task_id, created.url) == ("first", task.id, created.url)
    assert created.authentication.scheme == "Bearer" and not created.authentication.credentials
    got = await alice.get_task_push_notification_config(
        a2a.GetTaskPushNotificationConfigRequest(task_id=task.id, id="first")
    )
    assert got.url == "https://93.184.215.14/hook" and got.token == "tok-1"
    listed = await alice.list_task_push_notification_configs(
        a2a.ListTaskPushNotificationConfigsRequest(task_id=task.id)
    )
    assert [c.id for c in listed.configs] == ["first"]
    for attempt in (
        bob.get_task_push_notification_config(
            a2a.GetTaskPushNotificationConfigRequest(task_id=task.id, id="first")
        ),
        bob.create_task_push_notification_config(config(task.id, "https://93.184.215.14/x")),
        bob.list_task_push_notification_configs(
            a2a.ListTaskPushNotificationConfigsRequest(task_id=task.id)
        ),
    ):
        with pytest.raises(TaskNotFoundError):
            await attempt
    with pytest.raises(InvalidParamsError, match="network guard refuses it"):
        await alice.create_task_push_notification_config(config(task.id, "http://10.0.0.7/h"))
    deleting = a2a.DeleteTaskPushNotificationConfigRequest(task_id=task.id, id="first")
    await alice.delete_task_push_notification_config(deleting)
    await alice.delete_task_push_notification_config(deleting)  # idempotent
    empty = await alice.list_task_push_notification_configs(
        a2a.ListTaskPushNotificationConfigsRequest(task_id=task.id)
    )
    assert list(empty.configs) == []


async def test_a_task_s_end_is_pushed_with_the_config_s_credentials(edge: Edge) -> None:
    receiver = Receiver().start()
    try:
        alice = await edge.client("alice")
        pushed = config("", receiver.url, "mine")
        task = await send(
            alice, scripted(steps=1, interval=0.3), task_push_notification_config=pushed
        )
        await eventually(lambda: _states(receiver, task.id) != [], within=20)
        await eventually(lambda: "TASK_STATE_COMPLETED" in _states(receiver, task.id), 20)
        last = receiver.deliveries[-1]
        assert last.headers["authorization"] == "Bearer s3cret"
        assert last.headers["x-a2a-notification-token"] == "tok-1"
        assert last.headers["content-type"] == "application/a2a+json"
        update = last.data["statusUpdate"]
        assert update["taskId"] == task.id and update["contextId"] == task.context_id
        assert last.id.startswith("msg_")
    finally:
        receiver.stop()


def _states(receiver: Receiver, task_id: str) -> list[str]:
    return [
        d.data["statusUpdate"]["status"]["state"]
        for d in receiver.deliveries
        if d.data.get("statusUpdate", {}).get("taskId") == task_id
    ]
