"""Issue 16.5: secrets, form-data answers and `data` values never reach a recipe. A replay asks
the caller for the form data again and takes secrets and `data` values from its own `data`; no
file of the data directory holds a secret or form answer afterwards. The model is scripted at
the wire."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from google.protobuf import struct_pb2

from outrider.v1 import automate_events_pb2 as ae
from outrider.v1 import interaction_pb2 as ip
from outrider.v1 import interaction_service_pb2 as isv
from outrider.v1 import params_pb2, run_event_pb2, run_service_pb2
from tests.browser.secret_checks import leaks_in_files
from tests.browser.wire_model import act, plan, verdict, wire_harness, wire_model
from tests.conftest import HarnessFactory
from tests.support.harness import Harness
from tests.support.outbox import Outbox
from tests.support.requests import collect

PASSWORD = "Zq 7&ü+/Recipe-Canary"  # a `data` secret
USERNAME = "grace.hopper.canary"  # the caller's form-data answer


async def sign_in(harness: Harness, sites: str) -> list[run_event_pb2.RunEvent]:
    data = struct_pb2.Struct()
    data.update({"password": PASSWORD})
    params = params_pb2.AutomateParams(
        task="Sign in to my vault.",
        url=f"{sites}/vault/signin.html",
        interactive=True,
        trusted_hostnames=["127.0.0.1"],
        data=data,
    )
    options = params_pb2.RunOptions(recipes=params_pb2.RECIPE_MODE_REPLAY)
    start = isv.InteractStart(automate=params, options=options)
    outbox = Outbox(isv.InteractRequest(start=start))
    events: list[run_event_pb2.RunEvent] = []
    async for response in harness.interactions.Interact(outbox):
        if not response.HasField("event"):
            continue
        events.append(response.event)
        if response.event.automate.HasField("interactive_form_data_request"):
            outbox.send(_answer(response.event.automate.interactive_form_data_request))
    outbox.close()
    return events


def _answer(request: ae.InteractiveFormDataRequest) -> isv.InteractRequest:
    return isv.InteractRequest(
        form_data=isv.FormDataAnswer(
            request_id=request.request_id,
            fields=[ip.FieldValue(ref=f.ref, value=USERNAME) for f in request.fields],
        )
    )


async def test_no_secret_or_form_answer_in_a_recipe(
    make_harness: HarnessFactory, sites: str
) -> None:
    turns = [
        plan(),
        act("request_input", refs=['{{ref: input "Username"}}'], reason="your vault username"),
        act(
            "fill",
            expect=["The user filled"],
            ref='{{ref: input "Password"}}',
            value="{{secret:password}}",
        ),
        act("click", ref='{{ref: button "Sign in"}}'),
        act("done", expect=["Signed in as"], answer="Signed in."),
        verdict(),
    ]
    with wire_model(turns) as model:
        harness = await wire_harness(make_harness, sites, model, recipes=True)
        first = await sign_in(harness, sites)
        asked = len(model.provider.bodies)
        second = await sign_in(harness, sites)
    assert not model.problems, model.problems
    assert len(model.provider.bodies) == asked  # the replay asked the model nothing
    for events in (first, second):
        assert events[-2].automate.complete.success, events[-2]
    # the replay asked the caller again for the form data
    assert any(e.automate.HasField("interactive_form_data_request") for e in second)
    report = next(e.recipe_replayed for e in second if e.HasField("recipe_replayed"))
    assert report.steps_replayed == report.steps_total == 4 and not report.handed_over
    settings = harness.server.settings
    harness.server.store.flush()
    with closing(sqlite3.connect(settings.database_path)) as conn:
        (body,) = conn.execute("SELECT body FROM recipes").fetchone()
    assert "{{secret:password}}" in body and '"request_input"' in body
    harness.server.store.flush()
    for secret in (PASSWORD, USERNAME):
        assert leaks_in_files(secret, settings.data_dir) == [], secret


async def signup(
    harness: Harness, sites: str, name: str, email: str
) -> list[run_event_pb2.RunEvent]:
    data = struct_pb2.Struct()
    data.update({"name": name, "email": email})
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task="Sign me up for the Pro plan, from Japan.",
            url=f"{sites}/browser/signup.html",
            trusted_hostnames=["127.0.0.1"],
            data=data,
        ),
        options=params_pb2.RunOptions(recipes=params_pb2.RECIPE_MODE_REPLAY),
    )
    return await collect(harness.runs.Automate(request))


async def test_a_replay_fills_in_its_own_data(make_harness: HarnessFactory, sites: str) -> None:
    turns = [
        plan(),
        act("fill", ref='{{ref: input "Full name"}}', value="Ada Lovelace"),
        act("fill", ref='{{ref: input "Email"}}', value="ada.l@example.com"),
        act("select", ref='{{ref: select "Country"}}', values=["Japan"]),
        act("check", ref='{{ref: radio "Pro"}}'),
        act("click", ref='{{ref: button "Create account"}}'),
        act("done", expect=["Your account is ready"], answer="Your account is ready."),
        verdict(),
    ]
    with wire_model(turns) as model:
        harness = await wire_harness(make_harness, sites, model, recipes=True)
        await signup(harness, sites, "Ada Lovelace", "ada.l@example.com")
        asked = len(model.provider.bodies)
        second = await signup(harness, sites, "Grace Hopper", "grace.h@example.com")
    assert not model.problems, model.problems
    assert len(model.provider.bodies) == asked and second[-2].automate.complete.success
    filled = [e.automate.agent_action.value for e in second if e.automate.HasField("agent_action")]
    assert filled[:2] == ["Grace Hopper", "grace.h@example.com"], filled
    harness.server.store.flush()
    with closing(sqlite3.connect(harness.server.settings.database_path)) as conn:
        (body,) = conn.execute("SELECT body FROM recipes").fetchone()
    assert "{{data:name}}" in body and "{{data:email}}" in body
    assert "Ada" not in body and "ada.l" not in body
