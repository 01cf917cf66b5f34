"""RunService: each RPC translates its request to one core call and the result back."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import grpc

from outrider.server.core.errors import InvalidArgument
from outrider.server.core.names import parse_artifact_name, parse_run_name
from outrider.server.core.principals import Principal
from outrider.server.core.request_ids import check_request_id
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.runs.starting import RunSpec
from outrider.server.grpc_edge.auth import caller, reauthentication
from outrider.server.grpc_edge.errors import streaming, unary
from outrider.server.grpc_edge.streams import as_response, start_metadata
from outrider.v1 import run_pb2, run_service_pb2, run_service_pb2_grpc

Context = grpc.aio.ServicerContext[Any, Any]


def spec_from_oneof(message: Any, options: Any) -> tuple[RunSpec, str]:
    """The RunSpec of a message with an `automate`/`research` oneof named `params`."""
    arm = message.WhichOneof("params")
    if arm is None:
        raise InvalidArgument.single("params", "one of automate or research is required")
    kind = run_pb2.RUN_KIND_AUTOMATE if arm == "automate" else run_pb2.RUN_KIND_RESEARCH
    return RunSpec(kind, getattr(message, arm), options), arm


class RunServicer(run_service_pb2_grpc.RunServiceServicer):
    def __init__(self, runs: RunManager) -> None:
        self._runs = runs

    @streaming
    async def Automate(
        self, request: run_service_pb2.AutomateRequest, context: Context
    ) -> AsyncIterator[run_service_pb2.AutomateResponse]:
        spec = RunSpec(run_pb2.RUN_KIND_AUTOMATE, request.params, request.options)
        async for item in self._start_and_follow(spec, request.request_id, context):
            yield as_response(run_service_pb2.AutomateResponse, item)

    @streaming
    async def Research(
        self, request: run_service_pb2.ResearchRequest, context: Context
    ) -> AsyncIterator[run_service_pb2.ResearchResponse]:
        spec = RunSpec(run_pb2.RUN_KIND_RESEARCH, request.params, request.options)
        async for item in self._start_and_follow(spec, request.request_id, context):
            yield as_response(run_service_pb2.ResearchResponse, item)

    async def _start_and_follow(
        self, spec: RunSpec, request_id: str, context: Context
    ) -> AsyncIterator[Any]:
        """The run's events from sequence 1, also when the start repeated an earlier one."""
        principal = caller()
        request_id = _checked_request_id(request_id, principal)
        started = await self._runs.start(spec, principal, request_id=request_id)
        run_id = started.run.name.removeprefix("runs/")
        cancel_on_disconnect = spec.options.cancel_on_disconnect
        # Watching before the caller hears of the run: a shutdown then waits for this stream.
        items = self._runs.follow(
            run_id,
            0,
            principal,
            cancel_on_disconnect,
            answer_links=True,
            reauthenticate=reauthentication(),
        )
        async with contextlib.aclosing(items):
            await context.send_initial_metadata(start_metadata(started, streaming=True))
            async for item in items:
                yield item

    @unary
    async def CreateRun(
        self, request: run_service_pb2.CreateRunRequest, context: Context
    ) -> run_service_pb2.CreateRunResponse:
        spec, arm = spec_from_oneof(request, request.options)
        principal = caller()
        request_id = _checked_request_id(request.request_id, principal)
        started = await self._runs.start(
            spec, principal, params_at=f"{arm}.", request_id=request_id
        )
        if started.replayed:
            await context.send_initial_metadata(start_metadata(started, streaming=False))
        return run_service_pb2.CreateRunResponse(run=started.run)

    @unary
    async def GetRun(
        self, request: run_service_pb2.GetRunRequest, context: Context
    ) -> run_service_pb2.GetRunResponse:
        return run_service_pb2.GetRunResponse(
            run=self._runs.get(parse_run_name(request.name), caller())
        )

    @unary
    async def ListRuns(
        self, request: run_service_pb2.ListRunsRequest, context: Context
    ) -> run_service_pb2.ListRunsResponse:
        runs, token = self._runs.list(
            request.page_size,
            request.page_token,
            list(request.states),
            request.kind,
            caller(),
            request.task_contains,
        )
        return run_service_pb2.ListRunsResponse(runs=runs, next_page_token=token)

    @unary
    async def CancelRun(
        self, request: run_service_pb2.CancelRunRequest, context: Context
    ) -> run_service_pb2.CancelRunResponse:
        run = await self._runs.cancel(parse_run_name(request.name), request.reason, caller())
        return run_service_pb2.CancelRunResponse(run=run)

    @unary
    async def DeleteRun(
        self, request: run_service_pb2.DeleteRunRequest, context: Context
    ) -> run_service_pb2.DeleteRunResponse:
        run, freed = await self._runs.delete(parse_run_name(request.name), caller())
        return run_service_pb2.DeleteRunResponse(run=run, freed_artifact_bytes=freed)

    @streaming
    async def StreamRunEvents(
        self, request: run_service_pb2.StreamRunEventsRequest, context: Context
    ) -> AsyncIterator[run_service_pb2.StreamRunEventsResponse]:
        run_id = parse_run_name(request.name)
        items = self._runs.follow(
            run_id,
            request.after_sequence,
            caller(),
            answer_links=True,
            reauthenticate=reauthentication(),
        )
        async for item in items:
            yield as_response(run_service_pb2.StreamRunEventsResponse, item)

    @streaming
    async def ReadArtifact(
        self, request: run_service_pb2.ReadArtifactRequest, context: Context
    ) -> AsyncIterator[run_service_pb2.ReadArtifactResponse]:
        run_id, artifact_id = parse_artifact_name(request.name)
        artifacts, principal = self._runs.artifacts, caller()
        content_type, size = artifacts.describe(run_id, artifact_id, principal)
        chunks = artifacts.read(run_id, artifact_id, request.offset, request.chunk_size, principal)
        async for offset, data in chunks:
            yield run_service_pb2.ReadArtifactResponse(
                data=data, offset=offset, total_size=size, content_type=content_type
            )


def _checked_request_id(request_id: str, principal: Principal) -> str:
    """A caller's request id must be a UUID; a relayed start carries the key its first replica
    checked, which a REST Idempotency-Key need not be."""
    return request_id if principal.relayed else check_request_id(request_id, "request_id")
