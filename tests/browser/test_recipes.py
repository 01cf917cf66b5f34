"""Issue 16.5: a successful run kept as a recipe and replayed without the model; a changed page
hands over to the model; a recipe failing twice is retired. The model is scripted at the wire,
so "no model call" means the fake provider received no request."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from outrider.server.browser.recipe_store import RecipeStore
from outrider.server.browser.recipes import recipe_key
from outrider.server.core.principals import DEFAULT_TENANT
from outrider.server.telemetry.metrics import REGISTRY
from outrider.v1 import params_pb2, run_event_pb2, run_service_pb2
from tests.browser.wire_model import (
    Turn,
    WireModel,
    act,
    batch,
    plan,
    verdict,
    wire_harness,
    wire_model,
)
from tests.conftest import HarnessFactory
from tests.security.tenants import two_tenants
from tests.support.harness import Harness
from tests.support.requests import collect
from tests.support.sites import SITES_DIR, fixture_sites

TASK = "Put 3 x 100 g of Sencha in the basket and tell me the total."
ANSWER = "The basket holds 3 x Sencha, total €12.00."
RENAMED = "Put Sencha in basket"
REPLAY = params_pb2.RECIPE_MODE_REPLAY
OUTCOMES = ("recorded", "replayed", "handed_over")


def recipe_counts() -> tuple[float, ...]:
    """outrider_recipe_runs_total by outcome, then outrider_recipe_steps_replayed_total."""
    runs = "outrider_recipe_runs_total"
    samples = [
        *(REGISTRY.get_sample_value(runs, {"outcome": o}) for o in OUTCOMES),
        REGISTRY.get_sample_value("outrider_recipe_steps_replayed_total"),
    ]
    return tuple(value or 0.0 for value in samples)


def recorded_run(button: str = "Add Sencha to basket") -> list[Turn]:
    return [
        plan(),
        act("click", ref='{{ref: link "Green teas"}}'),
        act("fill", expect=["Sencha, €4.00"], ref='{{ref: spinbutton "Quantity"}}', value="3"),
        act("click", ref=f'{{{{ref: button "{button}"}}}}'),
        act("done", expect=["Total: €12.00"], answer=ANSWER),
        verdict(),
    ]


def taken_over_run() -> list[Turn]:
    """The model's part after the replay of the first click handed over on the renamed page."""
    return [
        act(
            "fill",
            expect=["replayed the first steps of a recipe", RENAMED],
            ref='{{ref: spinbutton "Quantity"}}',
            value="3",
        ),
        act("click", ref=f'{{{{ref: button "{RENAMED}"}}}}'),
        act("done", expect=["Total: €12.00"], answer=ANSWER),
        verdict(),
    ]


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The tea shop served from a copy that a test may change between runs."""
    root = tmp_path / "sites"
    shutil.copytree(SITES_DIR / "recipes", root / "recipes")
    with fixture_sites(root) as base_url:
        yield base_url, root / "recipes"


async def run_task(
    harness: Harness, sites: str, mode: int = REPLAY, metadata: tuple[tuple[str, str], ...] = ()
) -> list[run_event_pb2.RunEvent]:
    request = run_service_pb2.AutomateRequest(
        params=params_pb2.AutomateParams(
            task=TASK, url=f"{sites}/recipes/start.html", trusted_hostnames=["127.0.0.1"]
        ),
        options=params_pb2.RunOptions(recipes=mode),  # type: ignore[arg-type]
    )
    return await collect(harness.runs.Automate(request, metadata=metadata))


def answer_of(events: list[run_event_pb2.RunEvent]) -> str:
    complete = events[-2].automate.complete
    assert complete.success, complete
    return complete.final_answer


def replay_report(events: list[run_event_pb2.RunEvent]) -> run_event_pb2.RecipeReplayed:
    found = [e.recipe_replayed for e in events if e.HasField("recipe_replayed")]
    assert len(found) == 1, found
    return found[0]


async def recipes_server(make_harness: HarnessFactory, sites: str, model: WireModel) -> Harness:
    return await wire_harness(make_harness, sites, model, recipes=True)


async def test_a_repeated_task_replays_without_the_model(
    make_harness: HarnessFactory, shop: tuple[str, Path]
) -> None:
    sites, _ = shop
    counted = recipe_counts()
    with wire_model(recorded_run()) as model:
        harness = await recipes_server(make_harness, sites, model)
        first = await run_task(harness, sites)
        asked = len(model.provider.bodies)
        second = await run_task(harness, sites)
    assert not model.problems, model.problems
    assert asked == 6 and len(model.provider.bodies) == asked  # the replay asked nothing
    assert answer_of(first) == answer_of(second) == ANSWER
    assert not any(e.HasField("recipe_replayed") for e in first)
    report = replay_report(second)
    assert (report.steps_total, report.steps_replayed, report.handed_over) == (4, 4, False)
    actions = [
        e.automate.agent_action.action for e in second if e.automate.HasField("agent_action")
    ]
    assert actions == ["click", "fill", "click", "done"]
    store = RecipeStore(harness.server.store)
    assert store.counts(report.recipe_id) == (1, 0, False)
    added = [now - before for now, before in zip(recipe_counts(), counted, strict=True)]
    assert added == [1, 1, 0, 4]  # recorded, replayed, handed over; steps replayed


async def test_a_recipe_is_replayed_only_for_the_tenant_that_recorded_it(
    make_harness: HarnessFactory, shop: tuple[str, Path], tmp_path: Path
) -> None:
    """A recipe holds what its run saw (plan, answer): another tenant's run of the same task
    asks the model."""
    sites, _ = shop
    keys = two_tenants(tmp_path)
    with wire_model([*recorded_run(), *recorded_run()]) as model:
        harness = await wire_harness(make_harness, sites, model, recipes=True, keys_file=keys.file)
        await run_task(harness, sites, metadata=keys.bearer("alpha-1"))
        other = await run_task(harness, sites, metadata=keys.bearer("beta-1"))
        same = await run_task(harness, sites, metadata=keys.bearer("alpha-2"))
    assert not model.problems, model.problems
    assert len(model.provider.bodies) == 12  # beta's run asked the model as alpha's first did
    assert not any(e.HasField("recipe_replayed") for e in other)
    assert replay_report(same).steps_replayed == 4  # alpha's own recipe still serves alpha
    assert answer_of(other) == answer_of(same) == ANSWER


async def test_a_server_without_recipes_says_so_and_runs_as_usual(
    make_harness: HarnessFactory, shop: tuple[str, Path]
) -> None:
    sites, _ = shop
    with wire_model(recorded_run()) as model:
        harness = await wire_harness(make_harness, sites, model)  # OUTRIDER_RECIPES off
        events = await run_task(harness, sites)
    assert not model.problems, model.problems
    assert answer_of(events) == ANSWER
    said = [e.automate.agent_status.message for e in events if e.automate.HasField("agent_status")]
    assert "recipes are not kept on this server; ignored" in said
    key = recipe_key(DEFAULT_TENANT, TASK, f"{sites}/recipes/start.html")
    assert RecipeStore(harness.server.store).active(key) is None


async def test_recipes_are_off_unless_asked_for(
    make_harness: HarnessFactory, shop: tuple[str, Path]
) -> None:
    sites, _ = shop
    with wire_model([*recorded_run(), *recorded_run()]) as model:
        harness = await recipes_server(make_harness, sites, model)
        await run_task(harness, sites, mode=params_pb2.RECIPE_MODE_UNSPECIFIED)
        again = await run_task(harness, sites, mode=params_pb2.RECIPE_MODE_UNSPECIFIED)
    assert not model.problems, model.problems
    assert answer_of(again) == ANSWER and len(model.provider.bodies) == 12
    key = recipe_key(DEFAULT_TENANT, TASK, f"{sites}/recipes/start.html")
    assert RecipeStore(harness.server.store).active(key) is None


async def test_a_renamed_button_hands_over_to_the_model(
    make_harness: HarnessFactory, shop: tuple[str, Path]
) -> None:
    sites, pages = shop
    counted = recipe_counts()
    with wire_model([*recorded_run(), *taken_over_run()]) as model:
        harness = await recipes_server(make_harness, sites, model)
        await run_task(harness, sites)
        rename_button(pages)
        changed = await run_task(harness, sites)
    assert not model.problems, model.problems
    assert answer_of(changed) == ANSWER
    report = replay_report(changed)
    assert report.handed_over and report.steps_replayed == 1 and not report.retired
    assert "looks different" in report.divergence, report.divergence
    added = [now - before for now, before in zip(recipe_counts(), counted, strict=True)]
    assert added == [1, 0, 1, 1]


async def test_a_recipe_failing_twice_is_retired_and_recorded_anew(
    make_harness: HarnessFactory, shop: tuple[str, Path]
) -> None:
    sites, pages = shop
    turns = [*recorded_run(), *taken_over_run(), *taken_over_run()]
    with wire_model(turns) as model:
        harness = await recipes_server(make_harness, sites, model)
        await run_task(harness, sites)
        rename_button(pages)
        once = replay_report(await run_task(harness, sites))
        twice = replay_report(await run_task(harness, sites))
        asked = len(model.provider.bodies)
        healed = await run_task(harness, sites)  # the third run's recipe, replayed
    assert not model.problems, model.problems
    assert once.recipe_id == twice.recipe_id and (once.retired, twice.retired) == (False, True)
    store = RecipeStore(harness.server.store)
    assert store.counts(twice.recipe_id) == (0, 2, True)
    assert len(model.provider.bodies) == asked and answer_of(healed) == ANSWER
    fresh = replay_report(healed)
    assert fresh.recipe_id != twice.recipe_id and not fresh.handed_over


async def test_a_turn_of_several_actions_is_recorded_and_replayed_as_one_turn(
    make_harness: HarnessFactory, shop: tuple[str, Path]
) -> None:
    """Recorded from a run whose model filled the quantity and pressed the button in one reply,
    the recipe replays those two steps in one turn, with no model call."""
    sites, _ = shop
    recorded = recorded_run()
    batched = [*recorded[:2], batch(recorded[2], recorded[3]), *recorded[4:]]
    with wire_model(batched) as model:
        harness = await recipes_server(make_harness, sites, model)
        first = await run_task(harness, sites)
        asked = len(model.provider.bodies)
        second = await run_task(harness, sites)
    assert not model.problems, model.problems
    assert asked == 5 and len(model.provider.bodies) == asked
    assert answer_of(first) == answer_of(second) == ANSWER
    report = replay_report(second)
    assert (report.steps_total, report.steps_replayed, report.handed_over) == (4, 4, False)
    recipe = RecipeStore(harness.server.store).active(
        recipe_key(DEFAULT_TENANT, TASK, f"{sites}/recipes/start.html")
    )
    assert recipe is not None
    assert [(step.action, step.turn) for step in recipe.steps] == [
        ("click", 1),
        ("fill", 2),
        ("click", 2),
        ("done", 0),
    ]
    steps = [
        e.automate.agent_action.iteration_id for e in second if e.automate.HasField("agent_action")
    ]
    assert steps == ["step-1", "step-2", "step-2", "step-3"]


def rename_button(pages: Path) -> None:
    page = pages / "green.html"
    page.write_text(page.read_text().replace("Add Sencha to basket", RENAMED))
