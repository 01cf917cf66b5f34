"""Answering a run's questions at the terminal while its events keep streaming.

Prompts block on the keyboard, so each runs in a daemon thread, one at a time, while the event
loop goes on reading the run: a re-request after the page rejected a value is asked like a
request (with the page's complaints), a question that expires or closes while its prompt is open
is announced at once (and whatever is typed for it is dropped), and every refused answer is
reported. Nothing waits in silence."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from rich.console import Console

from outrider.cli.prompts import QuestionClosed, ask_approval, ask_form
from outrider.client import (
    Answer,
    AsyncInteractiveSession,
    approval_request,
    closed_unanswered,
    form_errors,
    form_request,
)
from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import run_event_pb2

T = TypeVar("T")


@dataclass(frozen=True)
class Question:
    interaction_id: str
    form: ae.InteractiveFormDataRequest | None = None
    errors: dict[str, str] | None = None
    approval: run_event_pb2.ApprovalRequested | None = None


def in_thread(function: Callable[..., T], *args: Any) -> asyncio.Future[T]:
    """`function(*args)` in a daemon thread: a prompt still open when the program ends does not
    keep it alive (asyncio.to_thread's pool would wait for it)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def work() -> None:
        try:
            result = function(*args)
        except BaseException as error:  # EOFError at Ctrl-D, and anything else, to the loop
            loop.call_soon_threadsafe(settle, None, error)
        else:
            loop.call_soon_threadsafe(settle, result, None)

    threading.Thread(target=work, name="outrider-prompt", daemon=True).start()
    return future


class Asker:
    def __init__(self, session: AsyncInteractiveSession, console: Console) -> None:
        self._session = session
        self._console = console
        self._queue: asyncio.Queue[Question | None] = asyncio.Queue()
        self._asked: set[str] = set()
        self._closed: set[str] = set()
        self._complaints: dict[str, str] = {}
        self._open: str | None = None  # the question whose prompt is on screen
        self._open_closed = threading.Event()  # set when that question closes unanswered
        self._worker = asyncio.create_task(self._work())

    def handle(self, event: run_event_pb2.RunEvent) -> None:
        """Queues the event's question, or notes that one closed unanswered."""
        if (form := form_request(event)) is not None:
            # The page's complaints go with the next question asked, should they arrive on an
            # event for a request already answered, before a fresh request.
            errors = form_errors(event) or self._complaints
            self._complaints = errors if form.request_id in self._asked else {}
            self._ask(Question(form.request_id, form=form, errors=errors))
        elif (approval := approval_request(event)) is not None:
            self._ask(Question(approval.approval_id, approval=approval))
        elif (closed := closed_unanswered(event)) is not None:
            self._closed.add(closed)
            if closed == self._open:
                self._open_closed.set()
                self._console.print(
                    "\n[bold yellow]Too late: that question closed unanswered (it expired or the "
                    "run ended). Press Enter to go on; what you type for it is dropped.[/]"
                )

    async def close(self) -> None:
        """After the run's last event: lets an open prompt finish (asking for Enter)."""
        if self._open is not None:
            self._console.print("\n[bold yellow]The run has ended; press Enter to leave.[/]")
        self._queue.put_nowait(None)
        await self._worker

    def abandon(self) -> None:
        """The stream failed or the person interrupted: stop asking without waiting for a key."""
        self._worker.cancel()

    def _ask(self, question: Question) -> None:
        if question.interaction_id not in self._asked:  # a repeated request is asked once
            self._asked.add(question.interaction_id)
            self._queue.put_nowait(question)

    async def _work(self) -> None:
        while (question := await self._queue.get()) is not None:
            if question.interaction_id in self._closed:
                continue
            self._open = question.interaction_id
            self._open_closed.clear()
            try:
                await self._answer(question)
            except QuestionClosed:
                pass  # announced when it closed
            finally:
                self._open = None

    async def _answer(self, question: Question) -> None:
        if question.form is not None:
            try:
                values = await in_thread(
                    ask_form, self._console, question.form, question.errors, self._open_closed
                )
            except EOFError:
                values = None
            if question.interaction_id in self._closed:
                return
            future = self._session.answer_form(
                question.interaction_id, values or {}, decline=values is None
            )
        else:
            assert question.approval is not None
            try:
                allow = await in_thread(
                    ask_approval, self._console, question.approval, self._open_closed
                )
            except EOFError:
                allow = False
            if question.interaction_id in self._closed:
                return
            if allow:
                future = self._session.approve(question.interaction_id)
            else:
                future = self._session.reject(
                    question.interaction_id, reason="refused at the terminal"
                )
        future.add_done_callback(self._report_verdict)

    def _report_verdict(self, future: asyncio.Future[Answer]) -> None:
        if future.cancelled() or future.exception() is not None:
            return
        answer = future.result()
        if not answer.accepted:
            self._console.print(
                f"[bold red]Your answer was refused:[/] {answer.message or answer.reason}"
            )
