"""Several actions per model turn (issue 27): the calls of one reply run in order, each with its
own events; the turn stops at a call that fails, opens a dialog, loads a page or switches tabs,
before a call whose target is gone or when new elements appeared, and at the per-turn cap; the
model is told which ran and why the rest did not. Real Chromium, fixture pages, scripted model."""

from __future__ import annotations

from typing import Any

from outrider.v1 import params_pb2, run_event_pb2, run_service_pb2
from tests.browser.conftest import BrowserCase, BrowserCaseFactory
from tests.browser.test_interactive import run_login
from tests.support.requests import collect

PLAN = {"data": {"plan": "Fill the form.", "success_criteria": "It is sent."}}
VERDICT = {"data": {"completion_quality": "complete", "observation": "Done."}}


def call(name: str, target: str = "", **arguments: Any) -> dict[str, Any]:
    """A tool call whose `ref` is the element on the snapshot line containing `target`."""
    if target:
        arguments["ref"] = f"{{{{ref: {target}}}}}"
    return {"name": name, "arguments": arguments}


def actor(*calls: dict[str, Any], expect: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"role": "actor", "expect": list(expect), "reply": {"tool_calls": list(calls)}}


def scenario(*turns: dict[str, Any]) -> dict[str, Any]:
    return {
        "turns": [
            {"role": "planner", "reply": PLAN},
            *turns,
            {"role": "validator", "reply": VERDICT},
        ]
    }


async def run(case: BrowserCase, page: str, task: str) -> list[run_event_pb2.RunEvent]:
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task=task, url=f"{case.sites}/{page}", trusted_hostnames=["127.0.0.1"]
        )
    )
    events = await collect(case.harness.runs.Automate(request))
    complete = events[-2].automate.complete
    assert complete.success, (complete, statuses(events))
    return events


def of(events: list[run_event_pb2.RunEvent], arm: str) -> list[Any]:
    return [getattr(e.automate, arm) for e in events if e.automate.HasField(arm)]


def statuses(events: list[run_event_pb2.RunEvent]) -> list[str]:
    return [s.message for s in of(events, "agent_status")]


def results_sent(case: BrowserCase, request: int) -> str:
    """The message texts of the `request`-th actor request (tool results among them)."""
    actors = [p for p in case.prompts() if p["role"] == "actor"]
    return "\n".join(actors[request]["messages"])


async def test_a_signup_form_is_filled_and_sent_in_one_turn(
    browser_case: BrowserCaseFactory,
) -> None:
    case = await browser_case(
        scenario(
            actor(
                call("fill", 'input "Full name"', value="Ada Lovelace"),
                call("fill", 'input "Email"', value="ada@example.com"),
                call("select", 'select "Country"', values=["Peru"]),
                call("check", 'radio "Pro"'),
                call("fill", '"Birthday"', value="1815-12-10"),
                call("check", 'checkbox "Send me news"'),
                call("click", 'button "Create account"'),
            ),
            actor(call("done", answer="Signed up."), expect=("Welcome aboard",)),
        )
    )
    events = await run(case, "browser/signup.html", "Sign me up.")
    assert [p["role"] for p in case.prompts()] == ["planner", "actor", "actor", "validator"]
    actions = [(a.action, a.iteration_id) for a in of(events, "agent_action")]
    assert [name for name, _ in actions] == [
        *["fill", "fill", "select", "check", "fill", "check", "click"],
        "done",
    ]
    assert {step for _, step in actions[:7]} == {"step-1"}  # one model turn
    assert [c.success for c in of(events, "browser_action_completed")] == [True] * 7
    assert not [s for s in statuses(events) if "carried out" in s]
    # the model hears every action's result, and the rules told it when to batch
    sent = results_sent(case, 1)
    assert sent.count("filled E") == 3 and "selected Peru" in sent and "clicked E" in sent
    assert "call up to 10 tools at once" in results_sent(case, 0)


async def test_a_wizard_turn_stops_where_the_page_changed_under_the_next_call(
    browser_case: BrowserCaseFactory,
) -> None:
    gone = "is no longer on the page as you saw it"
    appeared = "new elements appeared after the check"
    case = await browser_case(
        scenario(
            actor(
                call("fill", 'input "Full name"', value="Ada Lovelace"),
                call("fill", 'input "Email"', value="ada@example.com"),
                call("fill", 'input "Phone"', value="+44 20 7946 0000"),
                call("click", 'button "Next: address"'),
                call("fill", 'input "Full name"', value="again"),  # hidden by Next
            ),
            actor(
                call("fill", 'input "Street"', value="12 Analytical Row"),
                call("fill", 'input "City"', value="London"),
                call("check", 'checkbox "Deliver to another address"'),
                call("fill", 'input "Postcode"', value="EC1"),  # chosen before the new field
                expect=(gone,),
            ),
            actor(
                call("fill", 'input "Postcode"', value="EC1"),
                call("select", 'select "Country"', values=["Peru"]),
                call("click", 'button "Next: preferences"'),
                expect=(appeared, "Delivery street"),
            ),
            actor(
                call("check", 'checkbox "Send me the newsletter"'),
                call("check", 'checkbox "I accept the terms"'),
                call("click", 'button "Open the account"'),
            ),
            actor(call("done", answer="Opened."), expect=("Account opened for Ada Lovelace",)),
        )
    )
    events = await run(case, "forms/wizard.html", "Open an account for Ada.")
    said = statuses(events)
    assert [s.split(":")[0] for s in said if "carried out" in s] == [
        "carried out 4 of the turn's 5 actions",
        "carried out 3 of the turn's 4 actions",
    ]
    assert gone in said[0] and appeared in said[1]
    # the skipped calls' results say so; the next request carries them
    assert "Not carried out: E" in results_sent(case, 1) and gone in results_sent(case, 1)
    result = of(events, "agent_action")
    assert len(result) == 4 + 3 + 3 + 3 + 1
    assert "Account opened for Ada Lovelace (ada@example.com, +44 20 7946 0000), 12 " in (
        results_sent(case, 4)
    )


async def test_dialogs_failures_new_tabs_and_the_cap_end_a_turn(
    browser_case: BrowserCaseFactory,
) -> None:
    press = call("click", 'button "Press me"')
    opens = call("click", 'link "Open welcome in a new tab"')
    case = await browser_case(
        scenario(
            actor(call("click", 'button "Save draft"'), press),
            actor(call("click", ref="E999"), press),
            actor(call("scroll", direction="down"), call("scroll", direction="up"), opens),
            actor(opens, call("scroll", direction="down")),
            actor(call("done", answer="Welcome is open."), expect=("Welcome aboard",)),
        ),
        browser={"max_actions_per_turn": 2},
    )
    events = await run(case, "browser/widgets.html", "Open the welcome page.")
    stops = [s for s in statuses(events) if "carried out" in s]
    assert len(stops) == 4, stops
    assert "carried out 1 of the turn's 2 actions: a dialog opened after the click E" in stops[0]
    assert "carried out 1 of the turn's 2 actions: the click E999 failed" in stops[1]
    assert "carried out 2 of the turn's 3 actions: at most 2 actions" in stops[2]
    assert "switched to another tab" in stops[3]
    # the rules told the model of the cap; no skipped call reached the browser
    assert "call up to 2 tools at once" in results_sent(case, 0)
    clicked = [a.ref for a in of(events, "agent_action") if a.action == "click"]
    assert len(clicked) == 3  # Save draft, E999, Open welcome: never Press me


async def test_a_call_that_asked_the_user_ends_the_turn(browser_case: BrowserCaseFactory) -> None:
    """The page may have changed while the user answered (here the harness filled the form):
    the button the model chose before asking is not pressed until it looked again."""
    log_in = call("click", 'button "Log in"')
    ask = call("request_input", reason="Your member login")
    ask["arguments"]["refs"] = ['{{ref: input "Email"}}', '{{ref: input "Password"}}']
    case = await browser_case(
        scenario(
            actor(ask, log_in),
            actor(log_in, expect=("The user filled", "Not carried out: the request_input")),
            actor(call("done", answer="Logged in."), expect=("Welcome aboard",)),
        )
    )
    events = await run_login(case)
    assert events[-2].automate.complete.success
    said = [e.automate.agent_status.message for e in events if e.automate.HasField("agent_status")]
    assert any("carried out 1 of the turn's 2 actions: the request_input waited" in s for s in said)
