"""Three replicas on one PostgreSQL, thirty runs: each is started on one replica, watched on a
second and answered through the third; the replica executing a third of them is SIGKILLed while
half of its runs still wait for input. The survivors take those runs over and resume them; the
client answers what they ask again. Every run succeeds, every watcher (resuming on another
replica when its own dies, as a client would) gets every event once and in order, and every run
received an answer after its last resumption."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import grpc
import pytest

from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import (
    interaction_service_pb2_grpc,
    run_event_pb2,
    run_pb2,
    run_service_pb2,
    run_service_pb2_grpc,
)
from tests.support.harness import ServerProcess, eventually, rich_error
from tests.support.requests import automate_request, names

RUNS = 30
ACTIVE = (
    run_pb2.RUN_STATE_QUEUED,
    run_pb2.RUN_STATE_RUNNING,
    run_pb2.RUN_STATE_INPUT_REQUIRED,
    run_pb2.RUN_STATE_APPROVAL_REQUIRED,
)
SUBMITTED = "input submitted (RESOLUTION_SOURCE_CALLER)"
CLUSTER = {
    "OUTRIDER_CLUSTER_SECRET": "drill-secret-" + "z" * 24,
    "OUTRIDER_FAILOVER_INTERVAL": "0.5",
    "OUTRIDER_MAX_CONCURRENT_RUNS": "10",  # every run of a replica waits for input at once
}


class Node:
    def __init__(self, process: ServerProcess) -> None:
        self.process = process
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{process.port}")
        self.runs = run_service_pb2_grpc.RunServiceStub(self.channel)
        self.interactions = interaction_service_pb2_grpc.InteractionServiceStub(self.channel)
        self.alive = True


async def watch_resuming(nodes: list[Node], first: int, run: str) -> list[run_event_pb2.RunEvent]:
    """Follows the run on `nodes[first]`; when that replica dies, resumes on the next live one
    from the last sequence received."""
    events: list[run_event_pb2.RunEvent] = []
    index = first
    while True:
        node = nodes[index % len(nodes)]
        after = events[-1].sequence if events else 0
        stream = node.runs.StreamRunEvents(
            run_service_pb2.StreamRunEventsRequest(name=run, after_sequence=after)
        )
        try:
            async for response in stream:
                if response.HasField("event"):
                    events.append(response.event)
            return events
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            index += 1  # that replica is gone: resume elsewhere


async def pending_of(node: Node, run: str) -> ip.Interaction:
    found: list[ip.Interaction] = []

    async def listed() -> bool:
        response = await node.interactions.ListInteractions(isv.ListInteractionsRequest(run=run))
        found[:] = response.interactions
        return bool(found)

    try:
        await eventually(listed, within=60)
    except AssertionError:
        stored = (await node.runs.GetRun(run_service_pb2.GetRunRequest(name=run))).run
        raise AssertionError(f"{run} asked nothing: {stored}") from None
    return found[0]


async def answer(nodes: list[Node], first: int, interaction: ip.Interaction) -> bool:
    """Answers through `nodes[first]` (the next live one if it died): True when accepted; a
    refusal must say why (the executor is gone, its run was closed meanwhile, or it resumed
    and asks again under another id)."""
    request = isv.SubmitInputRequest(
        name=interaction.name, fields=[ip.FieldValue(ref="E1", value="me@example.com")]
    )
    for offset in range(len(nodes)):
        node = nodes[(first + offset) % len(nodes)]
        if not node.alive:
            continue
        try:
            await node.interactions.SubmitInput(request)
            return True
        except grpc.aio.AioRpcError as error:
            reason = rich_error(error).reason
            if reason in (
                "EXECUTOR_LOST",
                "RELAY_FAILED",
                "INTERACTION_CANCELLED",
                "INTERACTION_ASKED_AGAIN",
            ):
                return False
            if error.code() == grpc.StatusCode.UNAVAILABLE and not reason:
                continue  # this replica itself went away mid-call
            raise
    raise AssertionError("no replica left to answer through")


async def settle(nodes: list[Node], first: int, run: str) -> int:
    """Answers every question the run asks, through `nodes[first]` (or the next live replica),
    until the run ends, as a client that is told UNAVAILABLE would; returns how many of its
    answers were accepted."""
    accepted = 0
    deadline = asyncio.get_running_loop().time() + 90
    while asyncio.get_running_loop().time() < deadline:
        node = next(nodes[(first + k) % 3] for k in range(3) if nodes[(first + k) % 3].alive)
        state = (await node.runs.GetRun(run_service_pb2.GetRunRequest(name=run))).run.state
        if state not in ACTIVE:
            return accepted
        listed = await node.interactions.ListInteractions(isv.ListInteractionsRequest(run=run))
        for question in listed.interactions:
            accepted += await answer(nodes, first, question)
        await asyncio.sleep(0.05)
    raise AssertionError(f"{run} did not end")


@pytest.mark.timeout(240)
async def test_thirty_runs_across_three_replicas_survive_a_killed_executor(
    start_replica: Callable[..., ServerProcess],
) -> None:
    nodes = [Node(start_replica(**CLUSTER)) for _ in range(3)]
    for node in nodes:
        node.process.drain()
    try:
        runs = []
        for index in range(RUNS):  # run i: executed by i % 3, watched on i+1, answered via i+2
            request = automate_request(steps=2, interval=0.05, ask_input=True)
            created = await nodes[index % 3].runs.CreateRun(
                run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
            )
            runs.append(created.run.name)
        watchers = [
            asyncio.create_task(watch_resuming(nodes, index + 1, run))
            for index, run in enumerate(runs)
        ]
        questions = [await pending_of(nodes[(i + 2) % 3], run) for i, run in enumerate(runs)]
        half = RUNS // 2
        accepted = [int(await answer(nodes, (i + 2) % 3, questions[i])) for i in range(half)]
        assert all(accepted)  # every replica was up: every answer went through
        nodes[0].process.kill()  # SIGKILL mid-run: its runs 15, 18, ... still wait for input
        nodes[0].alive = False
        settled = [settle(nodes, (i + 2) % 3, run) for i, run in enumerate(runs)]
        later = await asyncio.gather(*settled)
        accepted = [a + b for a, b in zip(accepted + [0] * half, later, strict=True)]
        histories = await asyncio.wait_for(asyncio.gather(*watchers), 120)

        for index, (run, events) in enumerate(zip(runs, histories, strict=True)):
            assert [e.sequence for e in events] == list(range(1, len(events) + 1)), run
            assert names(events)[-2:] == ["complete", "done"], run
            assert names(events).count("done") == 1, run
            event_names = names(events)
            resumed_at = max(
                (i for i, n in enumerate(event_names) if n == "run_resumed"), default=-1
            )
            statuses = [  # what the agent reported since it last (re)started
                e.automate.agent_status.message
                for e in events[resumed_at + 1 :]
                if e.automate.HasField("agent_status")
            ]
            assert accepted[index] >= 1 and SUBMITTED in statuses, run  # no answer lost
            if index % 3 != 0 or index >= half:  # the answer was given after the kill
                assert names(events).count("run_resumed") == int(index % 3 == 0), run
        survivor = nodes[1]
        for index, run in enumerate(runs):
            stored = (await survivor.runs.GetRun(run_service_pb2.GetRunRequest(name=run))).run
            assert stored.state == run_pb2.RUN_STATE_SUCCEEDED, run
            assert stored.last_sequence == histories[index][-1].sequence, run
    finally:
        for node in nodes:
            await node.channel.close()
