"""A2A push notifications over the core's outbox: a task's push configs are A2A endpoints of the
core (`core/webhooks/push_configs.py`: owned by the run's tenant, checked by the egress guard),
and each of the task's state changes is delivered to them as a StreamResponse carrying a
statusUpdate, with the config's Authorization and token, by the same dispatcher as webhooks."""

from __future__ import annotations

import json

from a2a.types import a2a_pb2 as a2a
from google.protobuf import json_format

from outrider.server.a2a_edge.links import Caller
from outrider.server.a2a_edge.parts import TaskRef
from outrider.server.a2a_edge.tasks import A2ATasks, Begun
from outrider.server.core import clock
from outrider.server.core.principals import SYSTEM, Principal
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.sessions.manager import SessionManager
from outrider.server.core.storage.webhook_rows import Claimed, EndpointRow
from outrider.server.core.webhooks.egress import Outgoing
from outrider.server.core.webhooks.notices import (
    QUESTION_RESOLVED,
    QUESTION_WAITING,
    RUN_ENDED,
    RUN_RESUMED,
)
from outrider.server.core.webhooks.push_configs import PushTarget
from outrider.server.core.webhooks.rendering import USER_AGENT

CONTENT_TYPE = "application/a2a+json"
TOKEN_HEADER = "X-A2A-Notification-Token"
_ENDED = {
    "succeeded": a2a.TASK_STATE_COMPLETED,
    "failed": a2a.TASK_STATE_FAILED,
    "cancelled": a2a.TASK_STATE_CANCELED,
}


class PushNotifications:
    def __init__(self, runs: RunManager) -> None:
        self._runs = runs
        self._configs = runs.webhooks.push_configs

    async def set(
        self, config: a2a.TaskPushNotificationConfig, principal: Principal
    ) -> a2a.TaskPushNotificationConfig:
        auth = config.authentication
        authorization = f"{auth.scheme} {auth.credentials}".strip() if auth.credentials else ""
        target = PushTarget(config.id, config.url, authorization, config.token)
        return _config_of(await self._configs.set(config.task_id, target, principal))

    def get(
        self, request: a2a.GetTaskPushNotificationConfigRequest, principal: Principal
    ) -> a2a.TaskPushNotificationConfig:
        return _config_of(self._configs.get(request.task_id, request.id, principal))

    def list_configs(
        self, request: a2a.ListTaskPushNotificationConfigsRequest, principal: Principal
    ) -> a2a.ListTaskPushNotificationConfigsResponse:
        rows = self._configs.list_configs(request.task_id, principal)
        return a2a.ListTaskPushNotificationConfigsResponse(configs=[_config_of(r) for r in rows])

    async def delete(
        self, request: a2a.DeleteTaskPushNotificationConfigRequest, principal: Principal
    ) -> None:
        await self._configs.delete(request.task_id, request.id, principal)

    def render(self, claimed: Claimed, now: float) -> Outgoing:
        """One delivery as A2A's push: the task's status at the notice, as a statusUpdate."""
        message, endpoint = claimed.delivery.message, claimed.endpoint
        run_id = message.run_id or ""
        update = a2a.TaskStatusUpdateEvent(task_id=run_id, context_id=self._context_of(run_id))
        update.status.state = _state_of(message.type, json.loads(message.data))  # type: ignore[assignment]
        update.status.timestamp.CopyFrom(clock.timestamp(message.create_us))
        body = json_format.MessageToJson(a2a.StreamResponse(status_update=update), indent=None)
        headers = {
            "content-type": CONTENT_TYPE,
            "user-agent": USER_AGENT,
            "webhook-id": message.id,  # the same on every attempt: receivers deduplicate by it
            "webhook-timestamp": str(int(now)),
        }
        if endpoint.credentials.authorization:
            headers["authorization"] = endpoint.credentials.authorization
        if endpoint.credentials.token:
            headers[TOKEN_HEADER] = endpoint.credentials.token
        return Outgoing(endpoint.url, headers, body.encode())

    def _context_of(self, run_id: str) -> str:
        run = self._runs.get(run_id, SYSTEM)
        return TaskRef.of(run).context_id


def _state_of(kind: str, data: dict[str, object]) -> int:
    if kind == RUN_ENDED:
        return _ENDED.get(str(data.get("state")), a2a.TASK_STATE_FAILED)
    if kind == QUESTION_WAITING:
        return a2a.TASK_STATE_INPUT_REQUIRED
    if kind in (QUESTION_RESOLVED, RUN_RESUMED):
        return a2a.TASK_STATE_WORKING
    return a2a.TASK_STATE_UNSPECIFIED


def _config_of(row: EndpointRow) -> a2a.TaskPushNotificationConfig:
    config = a2a.TaskPushNotificationConfig(
        id=row.config_id or "",
        task_id=row.run_id or "",
        url=row.url,
        token=row.credentials.token,
    )
    scheme = row.credentials.authorization.partition(" ")[0]
    if scheme:  # the credentials are used, never shown again
        config.authentication.CopyFrom(a2a.AuthenticationInfo(scheme=scheme))
    return config


class PushingTasks(A2ATasks):
    """The task operations, with the push config a message may carry
    (`configuration.taskPushNotificationConfig`) set on its task as soon as the task exists."""

    def __init__(self, runs: RunManager, sessions: SessionManager | None = None) -> None:
        super().__init__(runs, sessions)
        self._push = PushNotifications(runs)

    async def begin(self, request: a2a.SendMessageRequest, caller: Caller) -> Begun:
        begun = await super().begin(request, caller)
        if request.configuration.HasField("task_push_notification_config"):
            config = a2a.TaskPushNotificationConfig()
            config.CopyFrom(request.configuration.task_push_notification_config)
            config.task_id = begun.run_id
            await self._push.set(config, caller.principal)
        return begun
