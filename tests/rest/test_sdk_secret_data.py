"""Issue 11.2: secrets in a run's `data` (keys naming a secret, {"$secret": ...}) are used for the
page but never stored or served: GetRun (gRPC) and GET /v1/runs/{id} (REST) show placeholders,
and no file of the data directory, event or prompt holds a secret, in any encoding. The model is
scripted at the wire; the run goes through the REST edge and the official tabstack SDK."""

from __future__ import annotations

from pathlib import Path

import grpc
import httpx
import tabstack

from outrider.server.settings.browser import BrowserSettings
from outrider.v1 import run_pb2, run_service_pb2, run_service_pb2_grpc
from tests.browser.secret_checks import leaks_in_files, leaks_in_messages, leaks_in_text
from tests.browser.wire_model import act, plan, verdict, wire_model
from tests.rest.conftest import RestFactory
from tests.support.requests import collect

PASSWORD = "S3cret Data+Pw/ü"
PIN = "938172"
DATA = {"username": "grace.h", "password": PASSWORD, "vault": {"pin": {"$secret": PIN}}}
MASKED = {
    "username": "grace.h",
    "password": "{{secret:password}}",
    "vault": {"pin": "{{secret:vault.pin}}"},
}


async def test_secret_data_is_used_but_never_stored_or_served(
    make_rest: RestFactory, sites: str, tmp_path: Path
) -> None:
    turns = [
        plan(),
        act(
            "fill", expect=["{{secret:password}}"], ref='{{ref: input "Username"}}', value="grace.h"
        ),
        act("fill", ref='{{ref: input "Password"}}', value="{{secret:password}}"),
        act("click", ref='{{ref: button "Sign in"}}'),
        act("done", expect=["Signed in as grace.h"], answer="Signed in."),
        verdict(),
    ]
    with wire_model(turns) as model:
        case = await make_rest(
            production=True,
            model=model.spec,
            network_allow=f"127.0.0.1:{sites.rsplit(':', 1)[1]}",
            browser=BrowserSettings(),
        )
        async with tabstack.AsyncTabstack(
            api_key="unused", base_url=case.base_url, max_retries=0
        ) as sdk:
            stream = await sdk.agent.automate(
                task="Sign in to my vault.",
                url=f"{sites}/vault/signin.html",
                data=DATA,
                trusted_hostnames=["127.0.0.1"],
            )
            sdk_events = [event async for event in stream]
    assert not model.problems, model.problems
    assert sdk_events[-2].data.success, sdk_events[-2]
    # the password did reach the page: the next URL carried it (redacted in the event)
    navigated = [e.data.url for e in sdk_events if e.event == "browser:navigated"]
    assert navigated[-1].endswith("home.html?user=grace.h&pw=[redacted]"), navigated

    async with httpx.AsyncClient(base_url=case.origin) as http:
        listed = (await http.get("/v1/runs")).json()["runs"]
        run_id = listed[0]["name"].removeprefix("runs/")
        served = (await http.get(f"/v1/runs/{run_id}")).json()
    assert served["params"]["data"] == MASKED, served["params"]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{case.grpc.port}") as channel:
        runs = run_service_pb2_grpc.RunServiceStub(channel)
        name = f"runs/{run_id}"
        run = (await runs.GetRun(run_service_pb2.GetRunRequest(name=name))).run
        events = await collect(
            runs.StreamRunEvents(run_service_pb2.StreamRunEventsRequest(name=name))
        )
    assert run.state == run_pb2.RUN_STATE_SUCCEEDED
    assert dict(run.automate.data)["password"] == "{{secret:password}}"
    for secret in (PASSWORD, PIN):
        assert not leaks_in_text(secret, str(served)), secret
        assert not leaks_in_messages(secret, [run, *events]), secret
        assert not leaks_in_text(secret, model.sent), secret
        assert not leaks_in_files(secret, tmp_path / "rest0"), secret
