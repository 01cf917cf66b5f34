"""Issue 23, item 2: what a browser run journals. A GET form (a read) is not a side effect; the
same form sent by POST is, also when a recipe replays the click without the model: the replay
path journals through the same actions."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from outrider.v1 import run_event_pb2
from tests.browser.test_recipes import ANSWER, answer_of, recipes_server, recorded_run, run_task
from tests.browser.wire_model import wire_model
from tests.conftest import HarnessFactory
from tests.support.sites import SITES_DIR, fixture_sites

# The basket reads the quantity from its URL: a POST keeps it there.
POST_FORM = 'action="/recipes/basket.html?qty=3" method="post"'


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The tea shop served from a copy the test changes between runs."""
    root = tmp_path / "sites"
    shutil.copytree(SITES_DIR / "recipes", root / "recipes")
    with fixture_sites(root) as base_url:
        yield base_url, root / "recipes"


def journaled(events: list[run_event_pb2.RunEvent]) -> list[run_event_pb2.SideEffect]:
    return [e.side_effect for e in events if e.HasField("side_effect")]


async def test_a_post_form_is_journaled_on_the_replay_path_too_a_get_form_never(
    make_harness: HarnessFactory, shop: tuple[str, Path]
) -> None:
    sites, pages = shop
    with wire_model(recorded_run()) as model:
        harness = await recipes_server(make_harness, sites, model)
        read_only = await run_task(harness, sites)  # the model's run; its form is sent by GET
        form = pages / "green.html"
        form.write_text(
            form.read_text().replace('action="/recipes/basket.html" method="get"', POST_FORM)
        )
        replayed = await run_task(harness, sites)  # the recipe's replay, the form now by POST
    assert not model.problems, model.problems
    assert answer_of(read_only) == answer_of(replayed) == ANSWER
    assert any(e.HasField("recipe_replayed") for e in replayed)
    assert journaled(read_only) == []
    [submit] = journaled(replayed)
    assert submit.kind == run_event_pb2.SIDE_EFFECT_KIND_FORM_SUBMIT
    assert (submit.method, submit.url) == ("POST", f"{sites}/recipes/basket.html?qty=3")
    assert submit.action == "click" and submit.iteration_id == "step-3"
    run_id = replayed[0].run.removeprefix("runs/")
    assert [e.url for e in harness.server.store.side_effects(run_id)] == [submit.url]
