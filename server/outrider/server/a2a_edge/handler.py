"""The SDK's request handler interface, answered by Outrider's core: each method a few lines over
`A2ATasks` (with push configs: `push.PushingTasks`), `listing` and `push`, behind the one error
table. The extended card is not offered (the card says so) and answers with the error the
protocol names for that."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from a2a.server.context import ServerCallContext
from a2a.server.events.event_queue import Event
from a2a.server.request_handlers.request_handler import RequestHandler, validate_request_params
from a2a.types import a2a_pb2 as a2a
from a2a.utils.errors import UnsupportedOperationError

from outrider.server.a2a_edge.auth import caller_of
from outrider.server.a2a_edge.errors import translated, translated_stream
from outrider.server.a2a_edge.listing import list_tasks
from outrider.server.a2a_edge.push import PushingTasks, PushNotifications
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.sessions.manager import SessionManager


class OutriderRequestHandler(RequestHandler):
    def __init__(self, runs: RunManager, sessions: SessionManager | None = None) -> None:
        self._runs = runs
        self._tasks = PushingTasks(runs, sessions)
        self._push = PushNotifications(runs)

    @validate_request_params
    @translated
    async def on_message_send(
        self, params: a2a.SendMessageRequest, context: ServerCallContext
    ) -> a2a.Task | a2a.Message:
        return await self._tasks.send(params, caller_of(context))

    @validate_request_params
    @translated_stream
    async def on_message_send_stream(
        self, params: a2a.SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event, None]:
        async for item in self._tasks.stream(params, caller_of(context)):
            yield item

    @validate_request_params
    @translated
    async def on_get_task(
        self, params: a2a.GetTaskRequest, context: ServerCallContext
    ) -> a2a.Task | None:
        return await self._tasks.get(params, caller_of(context))

    @validate_request_params
    @translated
    async def on_list_tasks(
        self, params: a2a.ListTasksRequest, context: ServerCallContext
    ) -> a2a.ListTasksResponse:
        return await list_tasks(self._runs, params, caller_of(context))

    @validate_request_params
    @translated
    async def on_cancel_task(
        self, params: a2a.CancelTaskRequest, context: ServerCallContext
    ) -> a2a.Task | None:
        return await self._tasks.cancel(params, caller_of(context))

    @validate_request_params
    @translated_stream
    async def on_subscribe_to_task(
        self, params: a2a.SubscribeToTaskRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event, None]:
        async for item in self._tasks.resubscribe(params, caller_of(context)):
            yield item

    @validate_request_params
    @translated
    async def on_create_task_push_notification_config(
        self, params: a2a.TaskPushNotificationConfig, context: ServerCallContext
    ) -> a2a.TaskPushNotificationConfig:
        return await self._push.set(params, caller_of(context).principal)

    @validate_request_params
    @translated
    async def on_get_task_push_notification_config(
        self, params: a2a.GetTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> a2a.TaskPushNotificationConfig:
        return self._push.get(params, caller_of(context).principal)

    @validate_request_params
    @translated
    async def on_list_task_push_notification_configs(
        self, params: a2a.ListTaskPushNotificationConfigsRequest, context: ServerCallContext
    ) -> a2a.ListTaskPushNotificationConfigsResponse:
        return self._push.list_configs(params, caller_of(context).principal)

    @validate_request_params
    @translated
    async def on_delete_task_push_notification_config(
        self, params: a2a.DeleteTaskPushNotificationConfigRequest, context: ServerCallContext
    ) -> None:
        await self._push.delete(params, caller_of(context).principal)

    async def on_get_extended_agent_card(
        self, params: a2a.GetExtendedAgentCardRequest, context: ServerCallContext
    ) -> a2a.AgentCard:
        raise UnsupportedOperationError("this agent has no extended card: its public card is all")
