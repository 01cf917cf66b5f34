"""The MCP server's backend over the core, for one authenticated principal: every call is the
core's own, with its scope and tenant checks; core errors become `Refused`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TypeVar

from google.protobuf import duration_pb2

from outrider.mcp.arguments import argument_path
from outrider.mcp.backend import Artifact, Params
from outrider.mcp.errors import Refused
from outrider.server.core import errors
from outrider.server.core.names import (
    parse_artifact_name,
    parse_interaction_name,
    parse_run_name,
    parse_session_name,
)
from outrider.server.core.principals import Principal
from outrider.server.core.request_ids import check_request_id
from outrider.server.core.runs.manager import RunManager
from outrider.server.core.runs.starting import RunSpec
from outrider.server.core.sessions.manager import SessionManager
from outrider.v1 import interaction_pb2, params_pb2, run_event_pb2, run_pb2, session_pb2
from outrider.v1 import run_event_pb2 as rp

T = TypeVar("T")
_STATUS: tuple[tuple[type[errors.OutriderError], str], ...] = (
    (errors.InvalidArgument, "INVALID_ARGUMENT"),
    (errors.NotFound, "NOT_FOUND"),
    (errors.AlreadyExists, "ALREADY_EXISTS"),
    (errors.FailedPrecondition, "FAILED_PRECONDITION"),
    (errors.OutOfRange, "OUT_OF_RANGE"),
    (errors.ResourceExhausted, "RESOURCE_EXHAUSTED"),
    (errors.Unimplemented, "UNIMPLEMENTED"),
    (errors.Unavailable, "UNAVAILABLE"),
    (errors.Unauthenticated, "UNAUTHENTICATED"),
    (errors.PermissionDenied, "PERMISSION_DENIED"),
)
NO_ANSWER_PAGE = (
    "this server serves no one-time answer page (OUTRIDER_CONSOLE is off), or this key may "
    "not answer questions, so a secret cannot be asked through MCP"
)


def refused(error: errors.OutriderError) -> Refused:
    status = next((name for kind, name in _STATUS if isinstance(error, kind)), "INTERNAL")
    violations = {}
    if isinstance(error, errors.InvalidArgument):
        violations = {argument_path(v.field): v.description for v in error.violations}
    return Refused(status, error.message, error.reason, violations)


@contextlib.contextmanager
def _translated() -> Iterator[None]:
    try:
        yield
    except errors.OutriderError as error:
        raise refused(error) from None


async def _awaited(call: Callable[[], Awaitable[T]]) -> T:
    with _translated():
        return await call()


class CoreBackend:
    partial_answers = True  # held by this replica when it executes the run (else sent whole)

    def __init__(
        self,
        runs: RunManager,
        principal: Principal,
        origin: str,
        sessions: SessionManager | None = None,
    ) -> None:
        """`origin`: where the caller reached this server (scheme://host[:port][/prefix]),
        for answer links when OUTRIDER_PUBLIC_URL does not make them absolute."""
        self._runs = runs
        self._sessions = sessions
        self._principal = principal
        self._origin = origin.rstrip("/")

    def holding(self) -> AbstractContextManager[None]:
        return self._runs.log.watcher()

    async def start(
        self, params: Params, options: params_pb2.RunOptions, request_id: str
    ) -> run_pb2.Run:
        automate = isinstance(params, params_pb2.AutomateParams)
        kind = run_pb2.RUN_KIND_AUTOMATE if automate else run_pb2.RUN_KIND_RESEARCH
        spec = RunSpec(kind, params, options)
        with _translated():
            key = check_request_id(request_id, "request_id")
        started = await _awaited(
            lambda: self._runs.start(spec, self._principal, "", "options.", request_id=key)
        )
        return started.run

    async def follow(self, run: str, after: int) -> AsyncGenerator[run_event_pb2.RunEvent, None]:
        with _translated():
            items = self._runs.follow(parse_run_name(run, "run"), after, self._principal)
        async with contextlib.aclosing(items):
            async for item in items:
                if isinstance(item, run_event_pb2.RunEvent):
                    yield item

    async def get(self, run: str) -> run_pb2.Run:
        with _translated():
            return self._runs.get(parse_run_name(run, "run"), self._principal)

    async def list_runs(
        self, page_size: int, page_token: str, states: Sequence[int], kind: int
    ) -> tuple[list[run_pb2.Run], str]:
        with _translated():
            return self._runs.list(page_size, page_token, list(states), kind, self._principal)

    async def cancel(self, run: str, reason: str) -> run_pb2.Run:
        with _translated():
            run_id = parse_run_name(run, "run")
        return await _awaited(lambda: self._runs.cancel(run_id, reason, self._principal))

    async def abandon(self, run: str) -> None:
        with _translated():
            self._runs.cancel_on_disconnect(parse_run_name(run, "run"), self._principal)

    async def read_artifact(self, name: str) -> Artifact:
        with _translated():
            run_id, artifact_id = parse_artifact_name(name, "artifact")
            content_type, _ = self._runs.artifacts.describe(run_id, artifact_id, self._principal)
            chunks = self._runs.artifacts.read(run_id, artifact_id, 0, 0, self._principal)
            data = b"".join([chunk async for _, chunk in chunks])
        return Artifact(data, content_type)

    async def pending(self, run: str) -> list[interaction_pb2.Interaction]:
        with _translated():
            run_id = parse_run_name(run, "run")
            found, _ = self._runs.interactions.list(
                run_id, [interaction_pb2.INTERACTION_STATE_PENDING], 100, "", self._principal
            )
        return found

    async def submit_input(
        self, interaction: str, values: Mapping[str, str], decline: bool
    ) -> None:
        with _translated():
            interaction_id = parse_interaction_name(interaction, "interaction")
        answers, fields = self._runs.answers, list(values.items())
        await _awaited(
            lambda: answers.submit_input(interaction_id, fields, decline, self._principal)
        )

    async def hold_input(self, interaction: str, values: Mapping[str, str]) -> bool:
        with _translated():
            interaction_id = parse_interaction_name(interaction, "interaction")
            held = self._runs.answers.hold_input(
                interaction_id, list(values.items()), self._principal
            )
        return held is not None

    async def decide_approval(
        self, interaction: str, approve: bool, always: bool, reason: str
    ) -> None:
        with _translated():
            interaction_id = parse_interaction_name(interaction, "interaction")
        decision = rp.APPROVAL_DECISION_APPROVE if approve else rp.APPROVAL_DECISION_REJECT
        scope = rp.APPROVAL_SCOPE_ALWAYS if always else rp.APPROVAL_SCOPE_ONCE
        answers = self._runs.answers
        await _awaited(
            lambda: answers.decide_approval(
                interaction_id, (decision, scope, reason), self._principal
            )
        )

    async def answer_url(self, interaction: str) -> str:
        links = self._runs.answer_links
        if not links.shown_to(self._principal):
            raise Refused("UNIMPLEMENTED", NO_ANSWER_PAGE, "ANSWER_PAGE_UNAVAILABLE")
        with _translated():
            interaction_id = parse_interaction_name(interaction, "interaction")
            url = links.get(interaction_id, self._principal).answer_url
        if not url:
            raise Refused("FAILED_PRECONDITION", f"{interaction} is no longer pending")
        return self._origin + url if url.startswith("/") else url

    async def create_session(
        self,
        kind: int,
        start_url: str,
        idle_timeout: int | None,
        max_life: int | None,
        request_id: str = "",
        profile: str = "",
    ) -> session_pb2.Session:
        durations = (_duration(idle_timeout), _duration(max_life))
        sessions = self._session_manager()
        with _translated():
            key = check_request_id(request_id, "request_id")
        created = await _awaited(
            lambda: sessions.create(kind, start_url, durations, {}, profile, self._principal, key)
        )
        return created.session

    async def end_session(self, session: str, reason: str) -> session_pb2.Session:
        sessions = self._session_manager()
        with _translated():
            session_id = parse_session_name(session, "session")
        return await _awaited(lambda: sessions.end(session_id, reason, self._principal))

    def _session_manager(self) -> SessionManager:
        if self._sessions is None:
            raise Refused("UNIMPLEMENTED", "this server keeps no sessions", "NOT_IMPLEMENTED")
        return self._sessions


def _duration(seconds: int | None) -> duration_pb2.Duration | None:
    return None if seconds is None else duration_pb2.Duration(seconds=seconds)
