"""Issue 11.4: a Tabstack client that did not opt in to approval events can neither see nor
answer an approval. Its interactive run on an untrusted host must not sit silent until expiry:
the held action is refused at once, as in non-interactive mode, the model is told why, and an
agent:status says so. A client that opted in is asked as before. Official tabstack SDK against
the REST edge; the model is scripted at the wire; interactions would wait ten minutes."""

from __future__ import annotations

from typing import Any

import tabstack

from outrider.server.settings.browser import BrowserSettings
from tests.browser.wire_model import WireModel, act, plan, wire_model
from tests.rest.conftest import RestFactory
from tests.rest.support import RestCase

REFUSED = "The user cannot be asked to approve it on this run"


def _turns(expect_after_fill: str) -> list[Any]:
    return [
        plan(),
        act("fill", expect=['button "Sign in"'], ref='{{ref: input "Username"}}', value="lin"),
        act("abort", expect=[expect_after_fill], reason="the fill was not allowed"),
    ]


async def _start(make_rest: RestFactory, sites: str, model: WireModel) -> RestCase:
    return await make_rest(
        production=True,
        model=model.spec,
        network_allow=f"127.0.0.1:{sites.rsplit(':', 1)[1]}",
        browser=BrowserSettings(),
        interaction_ttl=600.0,
    )


async def test_without_the_opt_in_a_held_action_is_refused_at_once(
    make_rest: RestFactory, sites: str
) -> None:
    with wire_model(_turns(REFUSED)) as model:
        case = await _start(make_rest, sites, model)
        async with tabstack.AsyncTabstack(
            api_key="unused", base_url=case.base_url, max_retries=0
        ) as sdk:
            stream = await sdk.agent.automate(
                task="Sign in as lin.", url=f"{sites}/vault/signin.html", interactive=True
            )
            events = [event async for event in stream]
            listed = await sdk.get("/interactions", cast_to=dict[str, Any])
    assert not model.problems, model.problems
    names = [e.event for e in events]
    assert names[-2:] == ["complete", "done"], names
    statuses = [e.data.message for e in events if e.event == "agent:status"]
    assert any("blocked fill" in s and "cannot answer approvals" in s for s in statuses), statuses
    assert listed["interactions"] == []  # nothing was left waiting for an answer


async def test_with_the_opt_in_the_caller_is_asked(make_rest: RestFactory, sites: str) -> None:
    with wire_model(_turns("The user rejected this fill")) as model:
        case = await _start(make_rest, sites, model)
        async with tabstack.AsyncTabstack(
            api_key="unused", base_url=case.base_url, max_retries=0
        ) as sdk:
            stream = await sdk.agent.automate(
                task="Sign in as lin.",
                url=f"{sites}/vault/signin.html",
                interactive=True,
                extra_headers={"X-Outrider-Approval-Events": "true"},
            )
            names = []
            async for event in stream:
                names.append(event.event)
                if event.event == "approval_requested":
                    # the SDK does not know our event; the interaction list names it
                    listed = await sdk.get("/interactions", cast_to=dict[str, Any])
                    approval_id = listed["interactions"][0]["name"].removeprefix("interactions/")
                    await sdk.post(
                        f"/automate/{approval_id}/approval",
                        body={"decision": "reject"},
                        cast_to=dict[str, Any],
                    )
    assert not model.problems, model.problems
    assert "approval_requested" in names and names[-1] == "done", names
