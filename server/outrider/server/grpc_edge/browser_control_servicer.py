"""BrowserControlService: each RPC translates its request to one core call (RunManager.browsers)
and the result back."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import grpc

from outrider.server.core.control.browsers import BrowserControls
from outrider.server.core.names import parse_interaction_name, parse_run_name
from outrider.server.grpc_edge.auth import caller
from outrider.server.grpc_edge.errors import streaming, unary
from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import browser_control_service_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]


class BrowserControlServicer(browser_control_service_pb2_grpc.BrowserControlServiceServicer):
    def __init__(self, browsers: BrowserControls) -> None:
        self._browsers = browsers

    @streaming
    async def WatchScreen(
        self, request: bcs.WatchScreenRequest, context: Context
    ) -> AsyncIterator[bcs.WatchScreenResponse]:
        size = (request.max_width, request.max_height)
        screen = await self._browsers.watch(parse_run_name(request.run, "run"), size, caller())
        async with contextlib.aclosing(screen) as messages:
            async for message in messages:
                yield message

    @unary
    async def TakeOver(
        self, request: bcs.TakeOverRequest, context: Context
    ) -> bcs.TakeOverResponse:
        run_id = parse_run_name(request.run, "run")
        takeover = await self._browsers.take_over(run_id, request.force, caller())
        return bcs.TakeOverResponse(takeover=takeover)

    @unary
    async def ForwardInput(
        self, request: bcs.ForwardInputRequest, context: Context
    ) -> bcs.ForwardInputResponse:
        run_id = parse_run_name(request.run, "run")
        expire = await self._browsers.forward(run_id, list(request.events), caller())
        return bcs.ForwardInputResponse(expire_time=expire)

    @unary
    async def HandBack(
        self, request: bcs.HandBackRequest, context: Context
    ) -> bcs.HandBackResponse:
        run_id = parse_run_name(request.run, "run")
        takeover_id = _takeover_id(request.takeover)
        takeover = await self._browsers.hand_back(run_id, takeover_id, request.note, caller())
        return bcs.HandBackResponse(takeover=takeover)

    @unary
    async def DeclineTakeover(
        self, request: bcs.DeclineTakeoverRequest, context: Context
    ) -> bcs.DeclineTakeoverResponse:
        run_id = parse_run_name(request.run, "run")
        takeover_id = _takeover_id(request.takeover)
        takeover = await self._browsers.decline(run_id, takeover_id, request.reason, caller())
        return bcs.DeclineTakeoverResponse(takeover=takeover)


def _takeover_id(name: str) -> str:
    return parse_interaction_name(name, "takeover") if name else ""
