"""An interactive run over the bidirectional Interact stream: events in, answers out.

    async with client.interact(automate_params("log in", url=..., interactive=True)) as session:
        async for event in session:
            if (request := form_request(event)) is not None:
                session.answer_form(request.request_id, {"E1": "me@example.com"})
            elif (approval := approval_request(event)) is not None:
                session.approve(approval.approval_id)

Answers are queued at once and return a future of the server's verdict, so they can be sent from
inside the loop. A dropped connection is resumed by attaching after the last event seen; answers
whose verdict had not arrived are sent again (an identical accepted answer is harmless). Before
the first event, a start with a request id is sent again as it was (see `StartRetry`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import grpc

from outrider.client._grpc import is_disconnect, translate
from outrider.client._resume import Cursor, ResumePolicy
from outrider.client._retry import StartRetry
from outrider.client.errors import AnswerRefusedError
from outrider.v1 import interaction_pb2, interaction_service_pb2, interaction_service_pb2_grpc
from outrider.v1 import run_event_pb2 as rp

Request = interaction_service_pb2.InteractRequest


@dataclass(frozen=True)
class Answer:
    """The server's verdict on one answer."""

    interaction_id: str
    accepted: bool
    reason: str = ""
    message: str = ""

    def raise_if_refused(self) -> None:
        if not self.accepted:
            raise AnswerRefusedError(self.interaction_id, self.reason, self.message)


class AsyncInteractiveSession:
    """Iterate it for events; answer with answer_form / approve / reject; cancel() ends the run."""

    def __init__(
        self,
        stub: interaction_service_pb2_grpc.InteractionServiceStub,
        first: Request,
        metadata: Sequence[tuple[str, str]],
        policy: ResumePolicy,
        start_retry: StartRetry | None = None,
    ) -> None:
        self._stub, self._first, self._metadata, self._policy = stub, first, metadata, policy
        self._start_retry = start_retry  # None: the first message is not sent again
        self._outbox: asyncio.Queue[Request | None] = asyncio.Queue()
        self._pending: dict[str, tuple[Request, asyncio.Future[Answer]]] = {}
        self.cursor = Cursor()
        self._iterator: AsyncGenerator[rp.RunEvent, None] | None = None

    @property
    def run(self) -> str:
        """The run's name once its first event arrived, else ""."""
        return self.cursor.run

    async def __aenter__(self) -> AsyncInteractiveSession:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Leaving the block closes the stream (the run goes on unless it was started with
        cancel_on_disconnect)."""
        self._outbox.put_nowait(None)
        if self._iterator is not None:
            await self._iterator.aclose()

    def __aiter__(self) -> AsyncIterator[rp.RunEvent]:
        self._iterator = self._events()
        return self._iterator

    def answer_form(
        self, request_id: str, values: Mapping[str, str], *, decline: bool = False
    ) -> asyncio.Future[Answer]:
        """Values by field ref ("E1": "me@example.com"); `decline` refuses the request instead."""
        fields = [interaction_pb2.FieldValue(ref=ref, value=v) for ref, v in values.items()]
        answer = interaction_service_pb2.FormDataAnswer(
            request_id=request_id, fields=fields, cancelled=decline
        )
        return self._send(request_id, Request(form_data=answer))

    def approve(
        self, approval_id: str, *, always: bool = False, reason: str = ""
    ) -> asyncio.Future[Answer]:
        scope = rp.APPROVAL_SCOPE_ALWAYS if always else rp.APPROVAL_SCOPE_ONCE
        return self._decide(approval_id, rp.APPROVAL_DECISION_APPROVE, scope, reason)

    def reject(self, approval_id: str, *, reason: str = "") -> asyncio.Future[Answer]:
        return self._decide(
            approval_id, rp.APPROVAL_DECISION_REJECT, rp.APPROVAL_SCOPE_ONCE, reason
        )

    def cancel(self, reason: str = "") -> None:
        """Cancels the run; its terminal events still arrive on this session."""
        self._outbox.put_nowait(
            Request(cancel=interaction_service_pb2.InteractCancel(reason=reason))
        )

    def _decide(
        self,
        approval_id: str,
        decision: rp.ApprovalDecision,
        scope: rp.ApprovalScope,
        reason: str,
    ) -> asyncio.Future[Answer]:
        answer = interaction_service_pb2.ApprovalAnswer(
            approval_id=approval_id, decision=decision, scope=scope, reason=reason
        )
        return self._send(approval_id, Request(approval=answer))

    def _send(self, interaction_id: str, request: Request) -> asyncio.Future[Answer]:
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._pending[interaction_id] = (request, future)
        self._outbox.put_nowait(request)
        return future

    def _settle(self, result: interaction_service_pb2.AnswerResult) -> None:
        request_and_future = self._pending.pop(result.interaction_id, None)
        if request_and_future is not None and not request_and_future[1].done():
            answer = Answer(result.interaction_id, result.accepted, result.reason, result.message)
            request_and_future[1].set_result(answer)

    async def _requests(self, outbox: asyncio.Queue[Request | None]) -> AsyncIterator[Request]:
        while (request := await outbox.get()) is not None:
            yield request

    def _open(self, first: Request) -> Any:
        self._outbox = asyncio.Queue()
        self._outbox.put_nowait(first)
        for request, _ in self._pending.values():
            self._outbox.put_nowait(request)
        return self._stub.Interact(self._requests(self._outbox), metadata=self._metadata)

    def _attach(self) -> Request:
        attach = interaction_service_pb2.InteractAttach(
            run=self.cursor.run, after_sequence=self.cursor.last_sequence
        )
        return Request(attach=attach)

    async def _events(self) -> AsyncGenerator[rp.RunEvent, None]:
        call, attempt = self._open(self._first), 0
        while True:
            try:
                async for response in call:
                    kind = response.WhichOneof("kind")
                    if kind == "answer_result":
                        self._settle(response.answer_result)
                    elif kind == "event" and self.cursor.accept(response.event):
                        attempt = 0
                        yield response.event
                return
            except grpc.RpcError as error:
                attempt += 1
                delay = self._retry_delay(error, attempt)
                if delay is None:
                    raise translate(error) from None
            finally:
                call.cancel()
                self._outbox.put_nowait(None)
            await asyncio.sleep(delay)
            call = self._open(self._attach() if self.run else self._first)

    def _retry_delay(self, error: grpc.RpcError, attempt: int) -> float | None:
        """A known run is attached to again by the resume policy; a start whose run is not
        known yet is sent again by its retry policy; None: give up."""
        if self.run:
            resumes = is_disconnect(error) and attempt <= self._policy.max_attempts
            return self._policy.backoff(attempt) if resumes else None
        retry = self._start_retry
        return retry.backoff(attempt) if retry and retry.retries(error, attempt) else None
