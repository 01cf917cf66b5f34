"""The console as an operator runs the service with it, in Chromium: a run started from the
console's form (the run records what the form said), a refused start that keeps the values
given but the secret, the run's time, steps, tokens and cost on its page and in the runs list
(sorted, filtered by creator and time), the steps in words, the replay of the finished run
driven from the keyboard, a queued run that says so, and a run started in a session made over
the API. The server has one execution slot, a priced scripted model by default
(tests/fixtures/scenarios/browser/console_operating.yaml) and no other model; axe-core finds
nothing serious on any page."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import grpc
import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from outrider.server.settings.providers import Price, ProviderSettings
from outrider.v1 import credential_pb2, params_pb2, profile_pb2, run_pb2, session_service_pb2
from outrider.v1 import credential_service_pb2 as cs
from outrider.v1 import credential_service_pb2_grpc as csg
from outrider.v1 import profile_service_pb2 as ps
from outrider.v1 import profile_service_pb2_grpc as psg
from outrider.v1 import run_service_pb2 as rs
from tests.console.support import (
    SCENARIOS,
    Console,
    accessibility_problems,
    console_server,
    part_shot,
    shot,
)
from tests.sessions.support import create as create_session
from tests.sessions.support import sessions_stub
from tests.support.harness import eventually

pytestmark = pytest.mark.asyncio(loop_scope="module")

MODEL = "scripted:console-priced"  # the scenario's name for its model, which the price names
SCENARIO = SCENARIOS / "browser" / "console_operating.yaml"
PRICE = Price(input=3.0, output=15.0)  # US dollars per million tokens
TASK = "Subscribe to the newsletter with ada@example.com"
CANARY = "hunter2-canary-7731"
# What the Subscribe branch's five model calls report (planner, three actor turns, validator).
TOKENS_IN, TOKENS_OUT = 1200 + 2400 + 2500 + 2600 + 900, 150 + 60 + 40 + 50 + 30


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def console(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Console]:
    async with console_server(
        tmp_path_factory.mktemp("operating"),
        model=f"scripted:{SCENARIO}",
        models={"priced": f"scripted:{SCENARIO}"},  # the operator's offer to callers
        max_concurrent_runs=1,
        providers=ProviderSettings(prices={MODEL: PRICE}),
    ) as server:
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def subscribed(console: Console) -> str:
    """A browser run started from the console's form, to its end; its id."""
    page = await console.signed_in("alice")
    await page.get_by_role("main").get_by_role("link", name="Start a run").click()
    await page.wait_for_url(f"{console.base}/start")
    await newsletter_task(page, console)
    await page.get_by_label("Step limit").fill("10")
    model = page.get_by_label("Model", exact=True)
    offered = await model.locator("option").all_inner_texts()
    assert offered == ["The server's model (scripted)", "priced (scripted)"], offered
    await model.select_option("priced")
    await part_shot(page, "main", "start-form")
    assert await accessibility_problems(page) == []
    await page.get_by_role("button", name="Start the run").click()
    await page.wait_for_url(re.compile(rf"{re.escape(console.base)}/runs/[0-9a-f]{{24}}$"))
    run_id = page.url.rsplit("/", 1)[-1]
    await expect(page.locator("#result")).to_contain_text(
        "Subscribed as ada@example.com.", timeout=60_000
    )
    await expect(page.locator("#live-status")).to_contain_text("The run has ended")
    await page.context.close()
    return run_id


async def test_a_run_started_from_the_console_runs_as_the_form_said(
    console: Console, subscribed: str
) -> None:
    run = (
        await console.runs.GetRun(
            rs.GetRunRequest(name=f"runs/{subscribed}"), metadata=console.keys.bearer("alice")
        )
    ).run
    assert run.created_by == "alice" and run.automate.task == TASK
    assert run.automate.url == f"{console.sites}/browser/newsletter.html"
    assert list(run.automate.trusted_hostnames) == ["127.0.0.1"]
    assert run.automate.max_iterations == 10 and not run.automate.interactive
    assert run.options.model == f"scripted:{SCENARIO}"  # the spec "priced" stands for
    assert (run.usage.steps, run.usage.input_tokens, run.usage.output_tokens) == (
        3,
        TOKENS_IN,
        TOKENS_OUT,
    )
    assert run.usage.estimated_cost_usd == pytest.approx(
        (TOKENS_IN * PRICE.input + TOKENS_OUT * PRICE.output) / 1e6
    )
    assert run.usage.actions == 2 and run.HasField("start_time")


async def test_the_run_page_shows_time_tokens_cost_per_step_and_the_steps_in_words(
    console: Console, subscribed: str
) -> None:
    page = await console.signed_in("alice")
    await page.goto(f"{console.base}/runs/{subscribed}")
    await expect(page.locator("#live-status")).to_contain_text("The run has ended")
    figures = page.locator("#run-figures")
    await expect(figures).to_contain_text(f"{TOKENS_IN + TOKENS_OUT:,}")
    await expect(figures).to_contain_text("$0.0338")  # 9,600 in at $3/M, 330 out at $15/M
    await expect(page.locator("#now")).to_contain_text("Succeeded after")
    rows = page.locator("#steps tbody tr")
    await expect(rows).to_have_count(5)  # getting ready, planning, steps 1 to 3
    await expect(rows.nth(2)).to_contain_text("Typed “ada@example.com” into the field “Email”")
    await expect(rows.nth(2)).to_contain_text("2,400")
    await expect(rows.nth(4)).to_contain_text("3,500")  # the last step's actor and validator
    timeline = page.locator("#timeline")
    await expect(timeline.locator("li.step-head")).to_have_count(5)
    await expect(timeline.locator("li.step-head").nth(3)).to_contain_text("Step 2")
    await expect(timeline).to_contain_text("Clicked the button “Subscribe”")
    assert not await timeline.get_by_text("agent:action").first.is_visible()  # raw: toggled
    await part_shot(page, "#run-summary", "run-summary")
    await part_shot(page, "#steps", "run-steps")
    await part_shot(page, ".timeline-panel", "run-timeline")
    assert await accessibility_problems(page) == []
    await page.get_by_label(re.compile("^Show raw events")).check()
    assert await timeline.get_by_text("agent:action").first.is_visible()
    assert await accessibility_problems(page) == []
    await page.context.close()


async def test_the_replay_of_a_finished_run_is_driven_from_the_keyboard(
    console: Console, subscribed: str
) -> None:
    page = await console.signed_in("alice")
    await page.goto(f"{console.base}/runs/{subscribed}")
    player = page.locator("#replay [data-replay]")
    slider = player.get_by_role("slider", name="Frame")
    await expect(slider).to_be_visible(timeout=30_000)
    frames = player.locator(".replay-frame")
    await expect(frames).to_have_count(3)  # steps 1 to 3, each with the page it looked at
    shown = player.locator(".replay-frame:visible")
    await expect(shown).to_have_count(1)
    await expect(shown).to_contain_text("Typed “ada@example.com” into the field “Email”")
    mark = shown.locator("svg rect.mark")
    await expect(mark).to_have_count(1)
    box = [float(await mark.get_attribute(name) or "0") for name in ("x", "y", "width")]
    assert box[0] > 0 and box[1] > 0 and box[2] > 50, box  # where the Email field is
    await slider.focus()
    await page.keyboard.press("ArrowRight")
    await expect(shown).to_contain_text("Clicked the button “Subscribe”")
    await expect(shown).to_contain_text("The email is in; sending the form.")  # its words
    await expect(slider).to_have_attribute("aria-valuetext", re.compile("Frame 2 of 3: Step 2"))
    await page.keyboard.press("End")
    await expect(shown).to_contain_text("Subscribed: the welcome page shows.")
    await expect(shown.locator("svg rect.mark")).to_have_count(0)  # done targets nothing
    await page.keyboard.press("Home")
    await player.get_by_role("button", name="Next step").click()
    await expect(shown).to_contain_text("Step 2")
    await shown.scroll_into_view_if_needed()
    await part_shot(page, "#replay", "run-replay")
    assert await accessibility_problems(page) == []
    await page.context.close()


async def test_a_refused_start_keeps_what_was_typed_but_secrets(console: Console) -> None:
    page = await console.signed_in("alice")
    await page.goto(f"{console.base}/start")
    await page.get_by_label(re.compile("^Task")).fill(TASK)
    await page.get_by_label("Start page").fill("ftp://files.example.com/newsletter")  # not http(s)
    data = '{"email": "ada@example.com", "password": "' + CANARY + '"}'
    await page.get_by_label("Data (JSON)").fill(data)
    await page.get_by_label("Guardrails").fill("Never pay for anything.")
    await page.get_by_label(re.compile("^It may ask people")).check()
    async with page.expect_response(lambda r: r.request.method == "POST") as refused:
        await page.get_by_role("button", name="Start the run").click()
    assert (await refused.value).status == 400
    field = page.get_by_label("Start page")
    await expect(field).to_have_attribute("aria-invalid", "true")
    await expect(page.locator("#error-url")).to_contain_text("The start page")
    await expect(page.get_by_label(re.compile("^Task"))).to_have_value(TASK)
    await expect(page.get_by_label("Guardrails")).to_have_value("Never pay for anything.")
    await expect(page.get_by_label(re.compile("^It may ask people"))).to_be_checked()
    kept = await page.get_by_label("Data (JSON)").input_value()
    assert "ada@example.com" in kept and '"$secret": ""' in kept and CANARY not in kept
    assert CANARY not in await page.content()
    await expect(page.get_by_role("alert")).to_contain_text("type them again")
    await shot(page, "start-refused", full_page=False)
    assert await accessibility_problems(page) == []
    await page.context.close()


async def test_a_model_the_form_does_not_offer_is_refused(console: Console) -> None:
    page = await console.signed_in("alice")
    await page.goto(f"{console.base}/start")
    await page.get_by_label(re.compile("^Task")).fill(TASK)
    forged = "openai-compatible:x@http://127.0.0.1:9/v1"
    await page.get_by_label("Model", exact=True).evaluate(
        "(select, value) => { select.add(new Option('forged', value)); select.value = value; }",
        forged,
    )
    async with page.expect_response(lambda r: r.request.method == "POST") as refused:
        await page.get_by_role("button", name="Start the run").click()
    assert (await refused.value).status == 400
    await expect(page.locator("#error-model")).to_contain_text("one of the models offered")
    await page.context.close()


async def newsletter_task(page: Page, console: Console) -> None:
    """The start form filled for the newsletter task (its site's host trusted)."""
    await page.get_by_label(re.compile("^Task")).fill(TASK)
    await page.get_by_label("Start page").fill(f"{console.sites}/browser/newsletter.html")
    await page.get_by_text("The action firewall and recipes").click()
    await page.get_by_label("Trusted hosts").fill("127.0.0.1")


async def test_a_run_started_in_a_session_goes_on_in_its_browser(console: Console) -> None:
    """A session made over the API; the form first names one that does not exist (refused by
    its field, the values kept), then the session by its id: the run is the session's."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{console.server.port}") as channel:
        bearer = console.keys.bearer("alice")
        session = await create_session(channel, bearer, start_url=f"{console.sites}/")
        page = await console.signed_in("alice")
        await page.goto(f"{console.base}/start")
        await newsletter_task(page, console)
        field = page.get_by_label("Go on in a session")
        await field.fill("0123456789abcdef01234567")
        async with page.expect_response(lambda r: r.request.method == "POST") as refused:
            await page.get_by_role("button", name="Start the run").click()
        assert (await refused.value).status == 404
        await expect(field).to_have_attribute("aria-invalid", "true")
        await expect(page.locator("#error-session")).to_have_text(
            re.compile("The session sessions/0123456789abcdef01234567 does not exist")
        )
        await expect(page.get_by_label(re.compile("^Task"))).to_have_value(TASK)
        assert await accessibility_problems(page) == []
        await field.fill(session.name.removeprefix("sessions/"))
        await page.get_by_role("button", name="Start the run").click()
        await page.wait_for_url(re.compile(rf"{re.escape(console.base)}/runs/[0-9a-f]{{24}}$"))
        run_id = page.url.rsplit("/", 1)[-1]
        await expect(page.locator("#result")).to_contain_text("Subscribed", timeout=60_000)
        got = await console.runs.GetRun(rs.GetRunRequest(name=f"runs/{run_id}"), metadata=bearer)
        assert got.run.options.session == session.name
        await expect(page.locator("#run-figures")).to_contain_text(session.name)
        await sessions_stub(channel).EndSession(
            session_service_pb2.EndSessionRequest(name=session.name), metadata=bearer
        )
        await page.context.close()


async def test_a_run_started_from_a_profile_with_credentials_saves_to_it(console: Console) -> None:
    """The form names a profile (saved when the run succeeds) and credentials by id; one that
    does not exist is refused with the values kept, then the run starts and saves its state."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{console.server.port}") as channel:
        bearer = console.keys.bearer("alice")
        profiles = psg.ProfileServiceStub(channel)
        await profiles.CreateProfile(ps.CreateProfileRequest(profile_id="news"), metadata=bearer)
        secret = credential_pb2.CredentialSecret(username="ada", password=CANARY)
        credential = cs.SetCredentialRequest(
            name="credentials/news", origins=[console.sites], secret=secret
        )
        await csg.CredentialServiceStub(channel).SetCredential(credential, metadata=bearer)
        page = await console.signed_in("alice")
        await page.goto(f"{console.base}/start")
        await newsletter_task(page, console)
        await page.get_by_label("Start from a profile").fill("news")
        await page.get_by_label("Save the browser's state to it").select_option("on_success")
        credentials = page.get_by_label("Credentials it may fill")
        await credentials.fill("news\nnope")
        async with page.expect_response(lambda r: r.request.method == "POST") as refused:
            await page.get_by_role("button", name="Start the run").click()
        assert (await refused.value).status == 404
        await expect(page.get_by_role("alert")).to_contain_text("credentials/nope does not exist")
        await expect(page.get_by_label("Start from a profile")).to_have_value("news")
        await credentials.fill("news")
        await page.get_by_role("button", name="Start the run").click()
        await page.wait_for_url(re.compile(rf"{re.escape(console.base)}/runs/[0-9a-f]{{24}}$"))
        run_id = page.url.rsplit("/", 1)[-1]
        await expect(page.locator("#result")).to_contain_text("Subscribed", timeout=60_000)
        request = rs.GetRunRequest(name=f"runs/{run_id}")

        async def ended() -> bool:  # the answer shows before the run saves and ends
            got = await console.runs.GetRun(request, metadata=bearer)
            return bool(got.run.state == run_pb2.RUN_STATE_SUCCEEDED)

        await eventually(ended, within=60)
        got = await console.runs.GetRun(request, metadata=bearer)
        options = got.run.options
        assert options.profile == "profiles/news"
        assert list(options.credentials) == ["credentials/news"]
        assert options.profile_save == profile_pb2.PROFILE_SAVE_ON_SUCCESS
        assert got.run.outcome.profile_save.saved, got.run.outcome
        saved = ps.GetProfileRequest(name="profiles/news")
        assert (await profiles.GetProfile(saved, metadata=bearer)).profile.version == 1
        assert CANARY not in await page.content()
        await page.context.close()


async def test_a_reader_is_told_they_may_not_start_runs(console: Console) -> None:
    page = await console.signed_in("reader")
    await page.goto(f"{console.base}/start")
    await expect(page.get_by_role("main")).to_contain_text("may not start runs")
    await expect(page.get_by_role("button", name="Start the run")).to_have_count(0)
    await page.context.close()


async def test_a_queued_run_says_it_is_queued_offers_no_takeover_and_shows_its_place(
    console: Console, subscribed: str
) -> None:
    holding = await start(console, "alice", "Verify the account", "takeover/verify.html")
    alice = await console.signed_in("alice")
    await alice.goto(f"{console.base}/runs/{holding}")
    await expect(alice.locator("#live-controls")).to_contain_text(
        "The agent asks for a person", timeout=60_000
    )
    waiting = await start(console, "carol", TASK, "browser/newsletter.html", ["127.0.0.1"])
    page = await console.signed_in("carol")
    await page.goto(f"{console.base}/runs/{waiting}")
    await expect(page.locator("#now")).to_have_text(re.compile("Queued: 1st in line"))
    controls = page.locator("#live-controls")
    await expect(controls).to_contain_text("The run is queued (1st in line)")
    await expect(page.get_by_role("button", name="Take over")).to_have_count(0)
    await expect(page.locator("#screen")).to_be_hidden()
    await expect(page.locator("#run-figures")).to_contain_text("1st in line")
    await shot(page, "run-queued", full_page=False)
    assert await accessibility_problems(page) == []
    await page.goto(f"{console.base}/")
    await expect(page.locator(f"#run-{waiting}").locator("xpath=../..")).to_contain_text(
        "1st in line"
    )
    await page.goto(f"{console.base}/runs/{waiting}")
    await alice.get_by_role("button", name="Decline").click()  # the slot is free again
    await expect(page.locator("#result")).to_contain_text("Subscribed", timeout=60_000)
    await expect(page.locator("#now")).to_contain_text("Succeeded after")
    for each in (alice, page):
        await each.context.close()


async def test_the_runs_list_shows_figures_sorts_and_filters_by_creator_and_time(
    console: Console, subscribed: str
) -> None:
    carols = await start(console, "carol", TASK, "browser/newsletter.html", ["127.0.0.1"])
    await console.ended("carol", carols)
    page = await console.signed_in("alice")
    table = page.locator("#runs table")
    row = table.locator("tr", has=page.locator(f"#run-{subscribed}"))
    await expect(row).to_contain_text(f"{TOKENS_IN + TOKENS_OUT:,}")
    await expect(row).to_contain_text("$0.0338")
    await expect(row.locator("td[data-label=Steps]")).to_have_text("3")
    await expect(row).to_contain_text("127.0.0.1")  # where it started
    started = row.locator("time.relative")
    await expect(started).to_have_text(re.compile(r"ago|just now"))
    assert re.search(r"\d{4}|\d:\d\d", await started.get_attribute("title") or "")
    await page.get_by_role("link", name=re.compile("^Cost")).click()
    await expect(table.locator("caption")).to_contain_text("sorted by cost (largest first)")
    costs = await table.locator("td[data-label=Cost]").all_inner_texts()
    assert costs == sorted(costs, key=_dollars, reverse=True), costs
    assert "sort=cost" in page.url
    every = await table.locator("tbody tr").count()
    await page.get_by_label("Started by").fill("carol")
    await expect(table.locator(f"#run-{carols}")).to_be_visible()
    await expect(table.locator(f"#run-{subscribed}")).to_have_count(0)
    assert set(await table.locator("td[data-label=By]").all_inner_texts()) == {"carol"}
    await page.get_by_label("Started by").fill("")
    await page.get_by_text("From and to (UTC)").click()
    await page.get_by_label("From (UTC)").fill("2099-01-01T00:00")
    await page.get_by_label("From (UTC)").dispatch_event("change")
    await expect(page.locator("#runs")).to_contain_text("No run matches these filters.")
    await page.get_by_label("From (UTC)").fill("")
    await page.get_by_label("Started", exact=True).select_option("1h")
    await expect(table.locator("caption")).to_contain_text("matching the filters")
    await expect(table.locator("tbody tr")).to_have_count(every)  # all of them are that recent
    await shot(page, "runs-figures")
    assert await accessibility_problems(page) == []
    await page.goto(f"{console.base}/?from=yesterday")
    await expect(page.get_by_role("alert")).to_contain_text("From is not a date and time")
    await page.context.close()


async def start(
    console: Console, principal: str, task: str, page: str, trusted: list[str] | None = None
) -> str:
    """A run of the module's default model, started over gRPC (interactive, so it may ask)."""
    request = rs.CreateRunRequest(
        automate=params_pb2.AutomateParams(
            task=task,
            url=f"{console.sites}/{page}",
            interactive=True,
            trusted_hostnames=trusted or [],
        )
    )
    response = await console.runs.CreateRun(request, metadata=console.keys.bearer(principal))
    return str(response.run.name.removeprefix("runs/"))


def _dollars(text: str) -> float:
    return float(text.strip("$")) if text.startswith("$") else -1.0
