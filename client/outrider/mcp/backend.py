"""What the MCP server needs of Outrider: start, follow, read, cancel and answer runs; start and
end sessions.

Implemented over the core in the server process (outrider.server.mcp_edge.backend) and over
gRPC for the stdio bridge (grpc_backend.py). Names are resource names ("runs/{id}",
"interactions/{id}", "runs/{id}/artifacts/{id}"); refusals raise `Refused`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from outrider.v1 import interaction_pb2, params_pb2, run_event_pb2, run_pb2, session_pb2

Params = params_pb2.AutomateParams | params_pb2.ResearchParams


@dataclass(frozen=True)
class Artifact:
    data: bytes
    content_type: str


class Backend(Protocol):
    # Whether a form's answer can be given in parts (see hold_input); without, a form with a
    # secret field goes to the answer page whole.
    partial_answers: bool

    def holding(self) -> AbstractContextManager[None]:
        """While a call is served: a stopping server waits for it (and its last reads) before
        it closes its store, as for an open event stream."""
        ...

    async def start(
        self, params: Params, options: params_pb2.RunOptions, request_id: str
    ) -> run_pb2.Run:
        """Starts a run; violations name tool arguments ("task", "options.model"). With a
        request id (a UUID), a start repeating an earlier one returns that run."""
        ...

    def follow(self, run: str, after: int) -> AsyncGenerator[run_event_pb2.RunEvent, None]:
        """Events with a sequence above `after`, then live ones until the run ended."""
        ...

    async def get(self, run: str) -> run_pb2.Run: ...

    async def list_runs(
        self, page_size: int, page_token: str, states: Sequence[int], kind: int
    ) -> tuple[list[run_pb2.Run], str]: ...

    async def cancel(self, run: str, reason: str) -> run_pb2.Run: ...

    async def abandon(self, run: str) -> None:
        """The client that started the run with cancel-on-disconnect left: cancel it."""
        ...

    async def read_artifact(self, name: str) -> Artifact: ...

    async def pending(self, run: str) -> list[interaction_pb2.Interaction]:
        """The run's interactions waiting for an answer."""
        ...

    async def submit_input(
        self, interaction: str, values: Mapping[str, str], decline: bool
    ) -> None: ...

    async def hold_input(self, interaction: str, values: Mapping[str, str]) -> bool:
        """Gives part of a form's answer in advance (the rest comes from the answer page);
        False when that cannot be done here (the whole form then goes to the page)."""
        ...

    async def decide_approval(
        self, interaction: str, approve: bool, always: bool, reason: str
    ) -> None: ...

    async def answer_url(self, interaction: str) -> str:
        """The one-time answer page of a pending interaction (Refused when none is served)."""
        ...

    async def create_session(
        self,
        kind: int,
        start_url: str,
        idle_timeout: int | None,
        max_life: int | None,
        request_id: str = "",
        profile: str = "",
    ) -> session_pb2.Session:
        """A new session (timeouts in seconds; None: the server's defaults); idempotent with a
        `request_id` (a UUID in lower case); its browser loaded from `profile` ("profiles/<id>")
        when given."""
        ...

    async def end_session(self, session: str, reason: str) -> session_pb2.Session: ...
