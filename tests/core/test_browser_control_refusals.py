"""What BrowserControlService says when there is no browser to watch or drive: a research run,
a browser run whose browser is not open (the test agent opens none), a run that ended, a run
with no takeover to hand back; and what a viewer of a run without a browser sees."""

from __future__ import annotations

from collections.abc import Awaitable

import grpc
import pytest

from outrider.v1 import browser_control_service_pb2 as bcs
from outrider.v1 import browser_control_service_pb2_grpc as bcg
from outrider.v1 import params_pb2, run_service_pb2
from tests.support.harness import Harness, RichError, rich_error
from tests.support.requests import automate_request, collect, research_query


async def refusal(call: Awaitable[object]) -> RichError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return rich_error(caught.value)


async def create(harness: Harness, **plan: object) -> str:
    request = automate_request(**plan)
    created = await harness.runs.CreateRun(
        run_service_pb2.CreateRunRequest(automate=request.params, options=request.options)
    )
    return created.run.name


async def test_a_browser_run_without_a_browser_open(harness: Harness) -> None:
    stub = bcg.BrowserControlServiceStub(harness.channel)
    run = await create(harness, steps=0, hold=True)
    watch = stub.WatchScreen(bcs.WatchScreenRequest(run=run))
    first = await watch.read()
    assert first.control.state == bcs.CONTROL_STATE_NO_BROWSER
    refused = await refusal(stub.TakeOver(bcs.TakeOverRequest(run=run)))
    assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NO_BROWSER")
    text = bcs.InputEvent(text=bcs.TextInput(text="hello"))
    refused = await refusal(stub.ForwardInput(bcs.ForwardInputRequest(run=run, events=[text])))
    assert refused.reason == "NOT_IN_CONTROL" and "the agent drives it" in refused.message
    refused = await refusal(stub.HandBack(bcs.HandBackRequest(run=run)))
    assert refused.reason == "NO_TAKEOVER"
    await harness.runs.CancelRun(run_service_pb2.CancelRunRequest(name=run))
    assert await watch.read() == grpc.aio.EOF  # the viewer's stream ends with the run
    ended = await refusal(stub.WatchScreen(bcs.WatchScreenRequest(run=run)).read())
    assert ended.reason == "RUN_ENDED"
    assert (await refusal(stub.TakeOver(bcs.TakeOverRequest(run=run)))).reason == "RUN_ENDED"
    assert (await refusal(stub.HandBack(bcs.HandBackRequest(run=run)))).reason == "NO_TAKEOVER"


async def test_a_research_run_has_no_browser(harness: Harness) -> None:
    stub = bcg.BrowserControlServiceStub(harness.channel)
    params = params_pb2.ResearchParams(query=research_query(steps=0))
    run = await harness.runs.CreateRun(run_service_pb2.CreateRunRequest(research=params))
    await collect(
        harness.runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=run.run.name))
    )
    for call in (
        stub.WatchScreen(bcs.WatchScreenRequest(run=run.run.name)).read(),
        stub.TakeOver(bcs.TakeOverRequest(run=run.run.name)),
    ):
        refused = await refusal(call)
        assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NO_BROWSER")


async def test_a_frame_size_out_of_range_is_refused(harness: Harness) -> None:
    stub = bcg.BrowserControlServiceStub(harness.channel)
    run = await create(harness, steps=0)
    request = bcs.WatchScreenRequest(run=run, max_width=8, max_height=5000)
    refused = await refusal(stub.WatchScreen(request).read())
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT and "max_width" in refused.violations
