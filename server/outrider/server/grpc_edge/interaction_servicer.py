"""InteractionService: the bidirectional Interact stream and unary answers for everyone else."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import grpc

from outrider.server.core.errors import InvalidArgument
from outrider.server.core.names import parse_interaction_name, parse_run_name
from outrider.server.core.principals import Principal
from outrider.server.core.request_ids import Started, check_request_id
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.runs.stream_checks import current_principal
from outrider.server.grpc_edge.auth import caller, reauthentication
from outrider.server.grpc_edge.errors import streaming, unary
from outrider.server.grpc_edge.interact import interact
from outrider.server.grpc_edge.run_servicer import spec_from_oneof
from outrider.server.grpc_edge.streams import start_metadata
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import interaction_service_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]


@dataclass(frozen=True)
class _Begun(Started):
    """The stream's run, started or attached to, and where and how to watch it."""

    after: int = 0
    cancel_on_disconnect: bool = False


class InteractionServicer(interaction_service_pb2_grpc.InteractionServiceServicer):
    def __init__(self, runs: RunManager) -> None:
        self._runs = runs

    @streaming
    async def Interact(
        self, requests: AsyncIterator[isv.InteractRequest], context: Context
    ) -> AsyncIterator[isv.InteractResponse]:
        principal = caller()
        first = await anext(aiter(requests), None)
        begun = await self._begin(first, principal)
        run_id = begun.run.name.removeprefix("runs/")
        # Watching before the caller hears of the run: a shutdown then waits for this stream.
        recheck = reauthentication()
        items = self._runs.follow(
            run_id,
            begun.after,
            principal,
            begun.cancel_on_disconnect,
            answer_links=True,
            reauthenticate=recheck,
        )
        async with contextlib.aclosing(items):
            await context.send_initial_metadata(start_metadata(begun, streaming=True))
            who = functools.partial(current_principal, principal, recheck)
            async for response in interact(self._runs, who, run_id, items, requests):
                yield response

    async def _begin(self, first: isv.InteractRequest | None, principal: Principal) -> _Begun:
        """Starts or finds the stream's run."""
        action = first.WhichOneof("action") if first is not None else None
        if first is None or action not in ("start", "attach"):
            raise InvalidArgument.single("action", "the first message must be start or attach")
        if action == "attach":
            run_id = parse_run_name(first.attach.run, "attach.run")
            run = self._runs.get(run_id, principal)
            return _Begun(run, after=first.attach.after_sequence)
        start = first.start
        spec, arm = spec_from_oneof(start, start.options)
        request_id = check_request_id(start.request_id, "start.request_id")
        started = await self._runs.start(
            spec,
            principal,
            params_at=f"start.{arm}.",
            options_at="start.options.",
            request_id=request_id,
        )
        return _Begun(started.run, started.replayed, 0, spec.options.cancel_on_disconnect)

    @unary
    async def SubmitInput(
        self, request: isv.SubmitInputRequest, context: Context
    ) -> isv.SubmitInputResponse:
        interaction = await self._runs.answers.submit_input(
            parse_interaction_name(request.name),
            [(f.ref, f.value) for f in request.fields],
            request.cancelled,
            caller(),
        )
        return isv.SubmitInputResponse(interaction=interaction)

    @unary
    async def DecideApproval(
        self, request: isv.DecideApprovalRequest, context: Context
    ) -> isv.DecideApprovalResponse:
        interaction = await self._runs.answers.decide_approval(
            parse_interaction_name(request.name),
            (request.decision, request.scope, request.reason),
            caller(),
        )
        return isv.DecideApprovalResponse(interaction=interaction)

    @unary
    async def ListInteractions(
        self, request: isv.ListInteractionsRequest, context: Context
    ) -> isv.ListInteractionsResponse:
        run_id = parse_run_name(request.run, "run") if request.run else None
        principal = caller()
        items, token = self._runs.interactions.list(
            run_id, list(request.states), request.page_size, request.page_token, principal
        )
        shown = [self._runs.answer_links.with_link(item, principal) for item in items]
        return isv.ListInteractionsResponse(interactions=shown, next_page_token=token)

    @unary
    async def GetInteraction(
        self, request: isv.GetInteractionRequest, context: Context
    ) -> isv.GetInteractionResponse:
        interaction = self._runs.answer_links.get(parse_interaction_name(request.name), caller())
        return isv.GetInteractionResponse(interaction=interaction)
