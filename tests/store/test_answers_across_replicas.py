"""Answers recognised by every replica (issue 34, item 1): a repeat of an accepted answer is
accepted anywhere, before and after the executor's loss; once the run was resumed and asks
again, an answer to the old question is told so, with the new question's id; a different answer
is refused as one; an approval given before the loss carries over to the resumed run's same
request; a form asked again says why. The drill: answers sent to the executor, the executor
SIGKILLed within 50 ms, the same answers sent again through another replica: never a false
"answered differently", and every run ends with an answer."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import run_event_pb2, run_pb2, run_service_pb2
from tests.store.test_cluster_drill import CLUSTER, Node, pending_of, settle, watch_resuming
from tests.support.harness import ServerProcess, eventually, rich_error
from tests.support.requests import automate_request, names


def answer_of(name: str, value: str = "me@example.com") -> isv.SubmitInputRequest:
    return isv.SubmitInputRequest(name=name, fields=[ip.FieldValue(ref="E1", value=value)])


async def started(nodes: list[Node], **plan: object) -> str:
    request = automate_request(**plan)
    created = await nodes[0].runs.CreateRun(
        run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
    )
    return created.run.name


async def stored_state(node: Node, name: str) -> int:
    got = await node.interactions.GetInteraction(isv.GetInteractionRequest(name=name))
    return got.interaction.state


async def resolved_in_store(node: Node, name: str) -> None:
    """Waits until another replica reads the interaction as answered (its write committed)."""

    async def answered() -> bool:
        return await stored_state(node, name) == ip.INTERACTION_STATE_RESOLVED

    await eventually(answered, within=30)


async def asked_again(node: Node, run: str, old: str) -> ip.Interaction:
    """The question the resumed run asks instead of `old`."""

    async def found() -> ip.Interaction | None:
        listed = await node.interactions.ListInteractions(isv.ListInteractionsRequest(run=run))
        return next((i for i in listed.interactions if i.name != old), None)

    await eventually(found, within=60)
    again = await found()
    assert again is not None
    return again


async def answered_on_the_executor(nodes: list[Node]) -> tuple[str, ip.Interaction]:
    """A holding run on replica 0 that asked for a form value, answered there (committed)."""
    run = await started(nodes, steps=1, ask_input=True, hold=True)
    question = await pending_of(nodes[1], run)
    await nodes[0].interactions.SubmitInput(answer_of(question.name))
    await resolved_in_store(nodes[1], question.name)
    return run, question


@pytest.fixture
async def nodes(start_replica: Callable[..., ServerProcess]) -> AsyncIterator[list[Node]]:
    replicas = [Node(start_replica(**CLUSTER)) for _ in range(3)]
    for node in replicas:
        node.process.drain()
    yield replicas
    for node in replicas:
        await node.channel.close()


async def test_a_repeat_is_accepted_on_every_replica_and_a_different_answer_refused(
    nodes: list[Node],
) -> None:
    _, question = await answered_on_the_executor(nodes)
    for node in nodes[1:]:  # the same answer, from a client unsure it was taken
        repeated = await node.interactions.SubmitInput(answer_of(question.name))
        assert repeated.interaction.state == ip.INTERACTION_STATE_RESOLVED
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await nodes[2].interactions.SubmitInput(answer_of(question.name, "other@example.com"))
    error = rich_error(refused.value)
    assert error.reason == "INTERACTION_ALREADY_RESOLVED" and "differently" in error.message


async def test_after_the_loss_an_answer_to_the_old_question_is_told_where_it_went(
    nodes: list[Node],
) -> None:
    run, question = await answered_on_the_executor(nodes)
    nodes[0].process.kill()
    nodes[0].alive = False
    again = await asked_again(nodes[1], run, question.name)
    assert again.form_data.form_description.startswith(f"Asked again: {question.name} was answered")
    with pytest.raises(grpc.aio.AioRpcError) as told:
        await nodes[1].interactions.SubmitInput(answer_of(question.name))  # the same answer
    error = rich_error(told.value)
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION
    assert error.reason == "INTERACTION_ASKED_AGAIN"
    assert "your answer to it was taken" in error.message and again.name in error.message
    assert asked_again_as(told.value) == again.name
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await nodes[2].interactions.SubmitInput(answer_of(question.name, "other@example.com"))
    error = rich_error(refused.value)
    assert error.reason == "INTERACTION_ALREADY_RESOLVED" and again.name in error.message
    await nodes[2].interactions.SubmitInput(answer_of(again.name))  # answered where it is asked
    await resolved_in_store(nodes[1], again.name)


async def test_an_approval_given_before_the_loss_carries_over_to_the_same_request(
    nodes: list[Node],
) -> None:
    run = await started(nodes, steps=1, ask_approval=True, hold=True)
    watcher = asyncio.create_task(watch_resuming(nodes, 1, run))
    question = await pending_of(nodes[1], run)
    decision = isv.DecideApprovalRequest(
        name=question.name, decision=run_event_pb2.APPROVAL_DECISION_APPROVE
    )
    await nodes[0].interactions.DecideApproval(decision)
    await resolved_in_store(nodes[1], question.name)
    nodes[0].process.kill()
    nodes[0].alive = False

    resolved_again: list[ip.Interaction] = []

    async def carried() -> bool:
        """The resumed run's approval is resolved: it is saved pending first and resolved by
        the carry-over in a later write, which another replica may read apart."""
        listed = await nodes[1].interactions.ListInteractions(
            isv.ListInteractionsRequest(run=run, states=[ip.INTERACTION_STATE_RESOLVED])
        )
        resolved_again[:] = [i for i in listed.interactions if i.name != question.name]
        return bool(resolved_again)

    await eventually(carried, within=60)
    (again,) = resolved_again
    assert again.decision == run_event_pb2.APPROVAL_DECISION_APPROVE  # nobody was asked
    repeated = await nodes[2].interactions.DecideApproval(decision)  # the retry: still true
    assert repeated.interaction.state == ip.INTERACTION_STATE_RESOLVED
    await nodes[2].runs.CancelRun(run_service_pb2.CancelRunRequest(name=run))
    events = await asyncio.wait_for(watcher, 60)
    resumed_at = names(events).index("run_resumed")
    after = events[resumed_at:]
    resolutions = [e.approval_resolved for e in after if e.HasField("approval_resolved")]
    assert len(resolutions) == 1 and question.name in resolutions[0].reason
    assert "approval APPROVAL_DECISION_APPROVE" in statuses(after)


@pytest.mark.timeout(300)
async def test_answers_retried_elsewhere_after_a_kill_within_50_ms_get_the_truth(
    nodes: list[Node],
) -> None:
    runs = [await started(nodes, steps=1, ask_input=True) for _ in range(8)]
    questions = [await pending_of(nodes[1], run) for run in runs]
    sent = [
        asyncio.ensure_future(nodes[0].interactions.SubmitInput(answer_of(q.name)))
        for q in questions
    ]
    await asyncio.sleep(random.uniform(0.0, 0.05))
    nodes[0].process.kill()
    nodes[0].alive = False
    await asyncio.gather(*sent, return_exceptions=True)  # answered or not: the client cannot tell
    outcomes = await asyncio.gather(*(retried(nodes, q) for q in questions))
    assert "INTERACTION_ALREADY_RESOLVED" not in outcomes, outcomes
    assert set(outcomes) <= {"accepted", "INTERACTION_ASKED_AGAIN"}, outcomes
    for run in runs:  # the client answers what the resumed runs ask, until they end
        await settle(nodes, 1, run)
        stored = (await nodes[1].runs.GetRun(run_service_pb2.GetRunRequest(name=run))).run
        assert stored.state == run_pb2.RUN_STATE_SUCCEEDED, (run, stored.outcome)


async def retried(nodes: list[Node], question: ip.Interaction) -> str:
    """The identical answer sent again through replica 1, as a client does (again while it is
    told UNAVAILABLE: nobody took the run over yet, or the relay to the killed executor failed
    before its presence was seen gone): what it was told in the end."""
    for _ in range(20):
        try:
            await nodes[1].interactions.SubmitInput(answer_of(question.name))
        except grpc.aio.AioRpcError as error:
            told = rich_error(error)
            if told.reason == "EXECUTOR_LOST":
                continue
            if told.reason == "RELAY_FAILED":  # fails at once: a client backs off, then retries
                await asyncio.sleep(0.2)
                continue
            if told.reason == "INTERACTION_ASKED_AGAIN":
                assert asked_again_as(error) in told.message
            return told.reason
        return "accepted"
    raise AssertionError(f"{question.name}: the executor was still lost after 20 tries")


def asked_again_as(error: grpc.aio.AioRpcError) -> str:
    """ErrorInfo.metadata["askedAgainAs"] of a refusal."""
    trailers = dict(error.trailing_metadata() or ())
    status = status_pb2.Status.FromString(trailers["grpc-status-details-bin"])
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.metadata.get("askedAgainAs", "")
    return ""


def statuses(events: list[run_event_pb2.RunEvent]) -> list[str]:
    return [e.automate.agent_status.message for e in events if e.automate.HasField("agent_status")]


async def test_on_sqlite_a_repeat_after_a_restart_is_accepted(tmp_path: Path) -> None:
    """One process and its file: the digest outlives the process, so a client retrying after
    a SIGKILL and a restart (its run was closed meanwhile) is told its answer was taken."""
    first = ServerProcess(tmp_path)
    first.start()
    node = Node(first)
    try:
        run = await started([node], steps=1, ask_input=True, hold=True)
        question = await pending_of(node, run)
        await node.interactions.SubmitInput(answer_of(question.name))
    finally:
        await node.channel.close()
        first.close()  # SIGKILL
    second = ServerProcess(tmp_path)
    second.start()
    node = Node(second)
    try:
        repeated = await node.interactions.SubmitInput(answer_of(question.name))
        assert repeated.interaction.state == ip.INTERACTION_STATE_RESOLVED
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await node.interactions.SubmitInput(answer_of(question.name, "other@example.com"))
        assert rich_error(refused.value).reason == "INTERACTION_ALREADY_RESOLVED"
    finally:
        await node.channel.close()
        second.close()
