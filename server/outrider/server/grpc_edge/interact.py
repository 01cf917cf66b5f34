"""One Interact stream: the run's events go out while answers and cancel come in, concurrently.

Outgoing items pass through a small bounded queue: a slow caller blocks only its own pump, whose
watcher then falls back to the store, so nothing else waits on it. When the run's events end, an
answer still in flight (acknowledged once committed) gets its result before the stream closes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable

from outrider.server.core.errors import InvalidArgument, OutriderError
from outrider.server.core.events.log import WatchItem
from outrider.server.core.names import parse_interaction_name
from outrider.server.core.principals import Principal
from outrider.server.core.runs.manager import RunManager
from outrider.server.grpc_edge.streams import as_response
from outrider.v1 import interaction_service_pb2 as isv

_OUTGOING_LIMIT = 64
_LAST_ANSWER_WAIT = 10.0  # seconds an answer in flight may hold the stream's close
_Item = isv.InteractResponse | BaseException | None


async def interact(
    runs: RunManager,
    who: Callable[[], Principal],
    run_id: str,
    items: AsyncGenerator[WatchItem, None],
    requests: AsyncIterator[isv.InteractRequest],
) -> AsyncIterator[isv.InteractResponse]:
    """The stream of run `run_id`: `items` (its watch, from `RunManager.follow`) go out; each
    answer or cancel coming in acts as `who()` (the caller as its credential names it now, or an
    error that ends the stream)."""
    outgoing: asyncio.Queue[_Item] = asyncio.Queue(_OUTGOING_LIMIT)
    idle = asyncio.Event()  # set while no answer is in flight
    idle.set()
    pump = asyncio.create_task(_pump(items, outgoing))
    reader = asyncio.create_task(_read(runs, who, run_id, requests, outgoing, idle))
    try:
        while (item := await outgoing.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
        with contextlib.suppress(TimeoutError):  # the run ended: its last answer's result
            await asyncio.wait_for(idle.wait(), _LAST_ANSWER_WAIT)
        while not outgoing.empty():
            last = outgoing.get_nowait()
            if isinstance(last, isv.InteractResponse):
                yield last
    finally:
        for task in (pump, reader):
            task.cancel()
        await asyncio.gather(pump, reader, return_exceptions=True)


async def _pump(items: AsyncGenerator[WatchItem, None], outgoing: asyncio.Queue[_Item]) -> None:
    try:
        async with contextlib.aclosing(items):
            async for item in items:
                await outgoing.put(as_response(isv.InteractResponse, item))
    except OutriderError as error:
        await outgoing.put(error)
        return
    await outgoing.put(None)


async def _read(
    runs: RunManager,
    who: Callable[[], Principal],
    run_id: str,
    requests: AsyncIterator[isv.InteractRequest],
    outgoing: asyncio.Queue[_Item],
    idle: asyncio.Event,
) -> None:
    async for request in requests:
        try:
            principal = who()
        except OutriderError as error:
            await outgoing.put(error)
            return
        action = request.WhichOneof("action")
        if action in ("start", "attach", None):
            await outgoing.put(
                InvalidArgument.single(
                    "action",
                    "only the first message may start or attach; later ones answer or cancel",
                )
            )
            return
        if action == "cancel":
            reason = request.cancel.reason or "cancelled on the Interact stream"
            try:
                runs.cancel_soon(run_id, reason, principal)
            except OutriderError as error:
                await outgoing.put(error)
                return
            continue
        idle.clear()
        result = await answer(runs, principal, run_id, request)
        await outgoing.put(isv.InteractResponse(answer_result=result))
        idle.set()


async def answer(
    runs: RunManager, principal: Principal, run_id: str, request: isv.InteractRequest
) -> isv.AnswerResult:
    """Applies a form-data answer or approval decision for the stream's run; refusals (also an
    interaction of another run) become a result, not an error, and the stream goes on."""
    is_form = request.HasField("form_data")
    interaction_id = request.form_data.request_id if is_form else request.approval.approval_id
    try:
        if is_form:
            await _submit(runs, principal, run_id, request.form_data)
        else:
            await _decide(runs, principal, run_id, request.approval)
    except OutriderError as error:
        return isv.AnswerResult(
            interaction_id=interaction_id,
            accepted=False,
            reason=error.reason,
            message=error.message,
        )
    return isv.AnswerResult(interaction_id=interaction_id, accepted=True)


async def _submit(
    runs: RunManager, principal: Principal, run_id: str, form: isv.FormDataAnswer
) -> None:
    interaction_id = parse_interaction_name(form.request_id, "form_data.request_id")
    values = [(f.ref, f.value) for f in form.fields]
    await runs.answers.submit_input(interaction_id, values, form.cancelled, principal, run_id)


async def _decide(
    runs: RunManager, principal: Principal, run_id: str, approval: isv.ApprovalAnswer
) -> None:
    interaction_id = parse_interaction_name(approval.approval_id, "approval.approval_id")
    answer = (approval.decision, approval.scope, approval.reason)
    await runs.answers.decide_approval(interaction_id, answer, principal, run_id)
