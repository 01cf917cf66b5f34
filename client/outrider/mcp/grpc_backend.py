"""The MCP server's backend over gRPC (the Python client library), for `outrider mcp`: a desktop
client's tools run on a remote Outrider server, as the key given to the bridge."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import timedelta

from outrider.client import AsyncClient, InvalidArgumentError, Options, RPCError
from outrider.client.vault import PROFILE_SAVES
from outrider.mcp.arguments import argument_path
from outrider.mcp.backend import Artifact, Params
from outrider.mcp.errors import Refused
from outrider.v1 import interaction_pb2, params_pb2, run_event_pb2, run_pb2, session_pb2

NO_ANSWER_PAGE = (
    "the server gave no one-time answer page for this question (it serves no console, or this "
    "key may not answer), so a secret cannot be asked through MCP"
)


@contextlib.contextmanager
def _translated() -> Iterator[None]:
    try:
        yield
    except RPCError as error:
        violations = {}
        if isinstance(error, InvalidArgumentError):
            violations = {argument_path(k): v for k, v in error.violations.items()}
        raise Refused(error.status, error.message, error.reason, violations) from None


class GrpcBackend:
    partial_answers = False  # parts of an answer are not sent over gRPC

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    def holding(self) -> AbstractContextManager[None]:
        return contextlib.nullcontext()  # the server's streams and calls are its own business

    async def start(
        self, params: Params, options: params_pb2.RunOptions, request_id: str
    ) -> run_pb2.Run:
        chosen = Options(
            cancel_on_disconnect=options.cancel_on_disconnect,
            model=options.model,
            allowed_domains=tuple(options.allowed_domains),
            blocked_domains=tuple(options.blocked_domains),
            omit_prompts=options.omit_prompts,
            refuse_held_actions=options.refuse_held_actions,
            session=options.session,
            profile=options.profile,
            profile_save={v: k for k, v in PROFILE_SAVES.items()}[options.profile_save],
            credentials=tuple(options.credentials),
        )
        with _translated():
            # without one, the client library makes a request id of its own for its retries
            return await self._client.create_run(
                params, options=chosen, request_id=request_id or None
            )

    async def follow(self, run: str, after: int) -> AsyncGenerator[run_event_pb2.RunEvent, None]:
        with _translated():
            async for event in self._client.events(run, after=after):
                yield event

    async def get(self, run: str) -> run_pb2.Run:
        with _translated():
            return await self._client.get_run(run)

    async def list_runs(
        self, page_size: int, page_token: str, states: Sequence[int], kind: int
    ) -> tuple[list[run_pb2.Run], str]:
        with _translated():
            page = await self._client.list_runs(
                page_size=page_size,
                page_token=page_token,
                states=list(states),  # type: ignore[arg-type]
                kind=kind,  # type: ignore[arg-type]
            )
        return page.items, page.next_page_token

    async def cancel(self, run: str, reason: str) -> run_pb2.Run:
        with _translated():
            return await self._client.cancel_run(run, reason=reason)

    async def abandon(self, run: str) -> None:
        await self.cancel(run, "the MCP client disconnected")

    async def read_artifact(self, name: str) -> Artifact:
        with _translated():
            artifact = await self._client.fetch_artifact(name)
        return Artifact(artifact.data, artifact.content_type)

    async def pending(self, run: str) -> list[interaction_pb2.Interaction]:
        with _translated():
            return (await self._client.list_interactions(run=run)).items

    async def submit_input(
        self, interaction: str, values: Mapping[str, str], decline: bool
    ) -> None:
        with _translated():
            await self._client.submit_input(interaction, values, decline=decline)

    async def hold_input(self, interaction: str, values: Mapping[str, str]) -> bool:
        return False

    async def decide_approval(
        self, interaction: str, approve: bool, always: bool, reason: str
    ) -> None:
        with _translated():
            await self._client.decide_approval(
                interaction, approve=approve, always=always, reason=reason
            )

    async def answer_url(self, interaction: str) -> str:
        with _translated():
            url = (await self._client.get_interaction(interaction)).answer_url
        if not url:
            raise Refused("UNIMPLEMENTED", NO_ANSWER_PAGE, "ANSWER_PAGE_UNAVAILABLE")
        if url.startswith("/"):
            raise Refused(
                "FAILED_PRECONDITION",
                "the server gives its answer links as paths; set OUTRIDER_PUBLIC_URL on it "
                "(where people reach its REST port) so that they are links a browser can open",
                "ANSWER_LINK_NOT_ABSOLUTE",
            )
        return url

    async def create_session(
        self,
        kind: int,
        start_url: str,
        idle_timeout: int | None,
        max_life: int | None,
        request_id: str = "",
        profile: str = "",
    ) -> session_pb2.Session:
        with _translated():
            return await self._client.sessions.create(
                _KIND_NAMES[kind],
                start_url=start_url,
                idle_timeout=_seconds(idle_timeout),
                max_life=_seconds(max_life),
                profile=profile,
                request_id=request_id,
            )

    async def end_session(self, session: str, reason: str) -> session_pb2.Session:
        with _translated():
            return await self._client.sessions.end(session, reason=reason)


_KIND_NAMES: dict[int, str] = {
    run_pb2.RUN_KIND_AUTOMATE: "automate",
    run_pb2.RUN_KIND_RESEARCH: "research",
}


def _seconds(value: int | None) -> timedelta | None:
    return None if value is None else timedelta(seconds=value)
