"""The asyncio client.

async with AsyncClient("localhost:50051") as client:
    async for event in client.automate("find the price", url="https://example.com"):
        print(event_name(event))
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from types import TracebackType
from typing import Any, Generic, TypeVar

import grpc

from outrider.client._grpc import metadata, open_channel, seconds, translate
from outrider.client._resume import Cursor, ResumePolicy, follow
from outrider.client._retry import Restart, StartRetry, request_id_for, retried
from outrider.client.browser import AsyncBrowserControl
from outrider.client.requests import (
    Options,
    automate_params,
    interaction_name,
    research_params,
    run_name,
)
from outrider.client.session import AsyncInteractiveSession
from outrider.client.session_service import AsyncSessions
from outrider.client.tls import Tls
from outrider.client.vault import AsyncCredentials, AsyncProfiles
from outrider.client.webhooks import AsyncWebhooks
from outrider.v1 import (
    interaction_pb2,
    interaction_service_pb2,
    interaction_service_pb2_grpc,
    params_pb2,
    run_event_pb2,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
)

T = TypeVar("T")
Params = params_pb2.AutomateParams | params_pb2.ResearchParams
DEFAULT_DEADLINE = timedelta(seconds=30)


@dataclass(frozen=True)
class Artifact:
    """An artifact's bytes and IANA media type (e.g. "image/jpeg")."""

    data: bytes
    content_type: str


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a listing; pass `next_page_token` back for the next one ("" on the last)."""

    items: list[T]
    next_page_token: str


class AsyncClient:
    """One channel to an Outrider server. Unary calls get `deadline` (a timedelta) unless given
    their own; streams have none and resume after dropped connections. `secure` uses TLS with the
    system's roots; `tls` names a CA file and, for mutual TLS, a client certificate.

    Every start (automate, research, stream, interact, create_run) sends a request id: the
    caller's `request_id` as it is, else a new UUID. A start that gets UNAVAILABLE, or whose
    stream drops before its run is known, is sent again with the same id as `start_retry` says:
    the server returns the run it may have started already instead of starting another. An
    explicit `request_id=""` sends none, and such a start is never sent twice."""

    def __init__(
        self,
        target: str,
        *,
        api_key: str | None = None,
        secure: bool = False,
        tls: Tls | None = None,
        deadline: timedelta | None = DEFAULT_DEADLINE,
        resume: ResumePolicy | None = None,
        start_retry: StartRetry | None = None,
    ) -> None:
        self.target = target
        self._channel = open_channel(target, secure, tls)
        self._metadata = metadata(api_key)
        self._deadline = deadline
        self._policy = resume or ResumePolicy()
        self._start_retry = start_retry or StartRetry()
        self._runs = run_service_pb2_grpc.RunServiceStub(self._channel)  # type: ignore[no-untyped-call]
        self._interactions = interaction_service_pb2_grpc.InteractionServiceStub(self._channel)  # type: ignore[no-untyped-call]
        # a browser run's live screen and takeovers
        self.browser = AsyncBrowserControl(self._channel, self._metadata, deadline)
        # sessions: a browser or a research thread kept between runs
        self.sessions = AsyncSessions(self._channel, self._metadata, deadline, self._policy)
        # the tenant's profiles and credentials
        self.profiles = AsyncProfiles(self._channel, self._metadata, deadline)
        self.credentials = AsyncCredentials(self._channel, self._metadata, deadline)
        # the tenant's webhook endpoints and their deliveries
        self.webhooks = AsyncWebhooks(self._channel, self._metadata, deadline)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Closes the channel; idempotent."""
        await self._channel.close()

    # streaming runs

    def automate(
        self,
        task: str,
        *,
        options: Options | None = None,
        request_id: str | None = None,
        **params: Any,
    ) -> AsyncIterator[run_event_pb2.RunEvent]:
        """Starts a browser run and yields its events until it ends. `params` are those of
        `automate_params` (url, data, guardrails, interactive, max_iterations, ...)."""
        return self.stream(automate_params(task, **params), options=options, request_id=request_id)

    def research(
        self,
        query: str,
        *,
        options: Options | None = None,
        request_id: str | None = None,
        **params: Any,
    ) -> AsyncIterator[run_event_pb2.RunEvent]:
        """Starts a research run and yields its events until it ends (mode="fast", ...)."""
        return self.stream(research_params(query, **params), options=options, request_id=request_id)

    def stream(
        self, params: Params, *, options: Options | None = None, request_id: str | None = None
    ) -> AsyncIterator[run_event_pb2.RunEvent]:
        """Starts a run of either kind from its parameter message and yields its events."""
        request_id = request_id_for(request_id)
        if isinstance(params, params_pb2.AutomateParams):
            automate = run_service_pb2.AutomateRequest(
                params=params, options=_options(options), request_id=request_id
            )
            start = functools.partial(self._runs.Automate, automate, metadata=self._metadata)
        else:
            research = run_service_pb2.ResearchRequest(
                params=params, options=_options(options), request_id=request_id
            )
            start = functools.partial(self._runs.Research, research, metadata=self._metadata)
        restart = Restart(start, self._start_retry) if request_id else None
        return follow(start(), self._stream_events, self._policy, Cursor(), restart)

    def events(self, run: str, *, after: int = 0) -> AsyncIterator[run_event_pb2.RunEvent]:
        """The run's events with a sequence above `after`, then live ones until it ends."""
        cursor = Cursor(run_name(run), after)
        return self._follow(self._stream_events(cursor.run, after), cursor)

    def interact(
        self, params: Params, *, options: Options | None = None, request_id: str | None = None
    ) -> AsyncInteractiveSession:
        """Starts a run on the bidirectional stream, to answer its questions as they come."""
        arm = "automate" if isinstance(params, params_pb2.AutomateParams) else "research"
        request_id = request_id_for(request_id)
        start = interaction_service_pb2.InteractStart(
            options=_options(options), request_id=request_id
        )
        getattr(start, arm).CopyFrom(params)
        first = interaction_service_pb2.InteractRequest(start=start)
        retry = self._start_retry if request_id else None
        return AsyncInteractiveSession(
            self._interactions, first, self._metadata, self._policy, retry
        )

    def attach(self, run: str, *, after: int = 0) -> AsyncInteractiveSession:
        """An interactive session on an existing run, from the events after `after`."""
        attach = interaction_service_pb2.InteractAttach(run=run_name(run), after_sequence=after)
        first = interaction_service_pb2.InteractRequest(attach=attach)
        session = AsyncInteractiveSession(self._interactions, first, self._metadata, self._policy)
        session.cursor = Cursor(run_name(run), after)
        return session

    def _follow(self, call: Any, cursor: Cursor) -> AsyncIterator[run_event_pb2.RunEvent]:
        return follow(call, self._stream_events, self._policy, cursor)

    def _stream_events(self, run: str, after: int) -> Any:
        request = run_service_pb2.StreamRunEventsRequest(name=run, after_sequence=after)
        return self._runs.StreamRunEvents(request, metadata=self._metadata)

    # runs

    async def create_run(
        self,
        params: Params,
        *,
        options: Options | None = None,
        deadline: timedelta | None = None,
        request_id: str | None = None,
    ) -> run_pb2.Run:
        """Starts a run without watching it; follow it with `events(run.name)`. Sent again
        with the same request id after UNAVAILABLE (see the class)."""
        arm = "automate" if isinstance(params, params_pb2.AutomateParams) else "research"
        request = run_service_pb2.CreateRunRequest(
            options=_options(options), request_id=request_id_for(request_id)
        )
        getattr(request, arm).CopyFrom(params)
        retry = self._start_retry if request.request_id else None
        call = functools.partial(self._call, self._runs.CreateRun, request, deadline)
        response = await retried(call, retry)
        return response.run  # type: ignore[no-any-return]

    async def get_run(self, run: str, *, deadline: timedelta | None = None) -> run_pb2.Run:
        request = run_service_pb2.GetRunRequest(name=run_name(run))
        return (await self._unary(self._runs.GetRun, request, deadline)).run  # type: ignore[no-any-return]

    async def list_runs(
        self,
        *,
        page_size: int = 0,
        page_token: str = "",
        states: Iterable[run_pb2.RunState] = (),
        kind: run_pb2.RunKind = run_pb2.RUN_KIND_UNSPECIFIED,
        task_contains: str = "",
        deadline: timedelta | None = None,
    ) -> Page[run_pb2.Run]:
        """A page of runs, newest first; with `task_contains`, only runs whose task holds that
        text (such a page may be short, even empty, and still have a next token)."""
        request = run_service_pb2.ListRunsRequest(
            page_size=page_size,
            page_token=page_token,
            states=list(states),
            kind=kind,
            task_contains=task_contains,
        )
        response = await self._unary(self._runs.ListRuns, request, deadline)
        return Page(list(response.runs), response.next_page_token)

    async def cancel_run(
        self, run: str, *, reason: str = "", deadline: timedelta | None = None
    ) -> run_pb2.Run:
        """Cancels a run (idempotent); it still emits its terminal events."""
        request = run_service_pb2.CancelRunRequest(name=run_name(run), reason=reason)
        return (await self._unary(self._runs.CancelRun, request, deadline)).run  # type: ignore[no-any-return]

    async def delete_run(
        self, run: str, *, deadline: timedelta | None = None
    ) -> run_service_pb2.DeleteRunResponse:
        """Deletes a finished run with its events, interactions and artifacts; returns the run
        as it was and the artifact bytes freed. An active run raises FailedPreconditionError
        (reason RUN_ACTIVE): cancel it first. A second delete raises NotFoundError."""
        request = run_service_pb2.DeleteRunRequest(name=run_name(run))
        return await self._unary(self._runs.DeleteRun, request, deadline)  # type: ignore[no-any-return]

    async def read_artifact(self, artifact: str, *, deadline: timedelta | None = None) -> bytes:
        """All bytes of "runs/{run_id}/artifacts/{artifact_id}", read in chunks."""
        return (await self.fetch_artifact(artifact, deadline=deadline)).data

    async def fetch_artifact(self, artifact: str, *, deadline: timedelta | None = None) -> Artifact:
        """`read_artifact` with the artifact's media type."""
        request = run_service_pb2.ReadArtifactRequest(name=artifact)
        call = self._runs.ReadArtifact(
            request,
            metadata=self._metadata,
            timeout=seconds(self._deadline if deadline is None else deadline),
        )
        chunks: list[bytes] = []
        content_type = ""
        try:
            async for chunk in call:
                chunks.append(chunk.data)
                content_type = content_type or chunk.content_type
        except grpc.RpcError as error:
            raise translate(error) from None
        return Artifact(b"".join(chunks), content_type)

    # interactions without the bidirectional stream

    async def submit_input(
        self,
        interaction: str,
        values: Mapping[str, str],
        *,
        decline: bool = False,
        deadline: timedelta | None = None,
    ) -> interaction_pb2.Interaction:
        """Answers a form-data request: values by field ref."""
        fields = [interaction_pb2.FieldValue(ref=ref, value=v) for ref, v in values.items()]
        request = interaction_service_pb2.SubmitInputRequest(
            name=interaction_name(interaction), fields=fields, cancelled=decline
        )
        response = await self._unary(self._interactions.SubmitInput, request, deadline)
        return response.interaction  # type: ignore[no-any-return]

    async def decide_approval(
        self,
        interaction: str,
        *,
        approve: bool,
        always: bool = False,
        reason: str = "",
        deadline: timedelta | None = None,
    ) -> interaction_pb2.Interaction:
        request = interaction_service_pb2.DecideApprovalRequest(
            name=interaction_name(interaction),
            decision=run_event_pb2.APPROVAL_DECISION_APPROVE
            if approve
            else run_event_pb2.APPROVAL_DECISION_REJECT,
            scope=run_event_pb2.APPROVAL_SCOPE_ALWAYS
            if always
            else run_event_pb2.APPROVAL_SCOPE_ONCE,
            reason=reason,
        )
        response = await self._unary(self._interactions.DecideApproval, request, deadline)
        return response.interaction  # type: ignore[no-any-return]

    async def list_interactions(
        self,
        *,
        run: str = "",
        states: Iterable[interaction_pb2.InteractionState] = (),
        page_size: int = 0,
        page_token: str = "",
        deadline: timedelta | None = None,
    ) -> Page[interaction_pb2.Interaction]:
        """Interactions, oldest first; pending ones only unless `states` says otherwise."""
        request = interaction_service_pb2.ListInteractionsRequest(
            run=run_name(run) if run else "",
            states=list(states),
            page_size=page_size,
            page_token=page_token,
        )
        response = await self._unary(self._interactions.ListInteractions, request, deadline)
        return Page(list(response.interactions), response.next_page_token)

    async def get_interaction(
        self, interaction: str, *, deadline: timedelta | None = None
    ) -> interaction_pb2.Interaction:
        request = interaction_service_pb2.GetInteractionRequest(name=interaction_name(interaction))
        response = await self._unary(self._interactions.GetInteraction, request, deadline)
        return response.interaction  # type: ignore[no-any-return]

    async def _unary(self, method: Any, request: Any, deadline: timedelta | None) -> Any:
        try:
            return await self._call(method, request, deadline)
        except grpc.RpcError as error:
            raise translate(error) from None

    def _call(self, method: Any, request: Any, deadline: timedelta | None) -> Awaitable[Any]:
        timeout = seconds(self._deadline if deadline is None else deadline)
        call: Awaitable[Any] = method(request, metadata=self._metadata, timeout=timeout)
        return call


def _options(options: Options | None) -> params_pb2.RunOptions:
    return (options or Options()).to_proto()
